"""The benchmark's train and score stages on a GPU node with torch and transformers only (no network, Beam or spaCy).

What needs the others is done here first:

    python bench/airgapped.py pack --summac DIR --work W --bundle B     # here: rows split into blocks and sentences
                                                                        # by the parser, sentences parsed, datasets,
                                                                        # the encoder shrunk to 34 MB (56 MiB)
    python3 bench/airgapped.py run --bundle B --out OUT [--epochs 3]   # there: `entailgen train`'s fit of the
                                                                        # bench's models, then SummaC-ZS cells on GPU
    python bench/airgapped.py unpack OUT --work W2 --datasets W         # here: W2 holds the models' small files,
                                                                        # their score caches and W's datasets, as
                                                                        # bench/benchmark.py would have left them;
                                                                        # then benchmark.py --work W2 --conv-rows 0

There, Beam is absent (the trainer's fit and the scorers import none of it), spaCy is its English stop-word list
(transforms.views' content words) and the parser is a lookup of the parses made here. Training and
scoring are entailgen's own code (trainer.fit, DocumentScorer.scored with the split made here), so the score caches
are the ones `bench/benchmark.py --device cuda` would write (to the 6th decimal: cells go 256 to a batch, not 32).
The models' weights stay there (too large to bring back); the Conv head, which needs them, is left out
(`benchmark.py --conv-rows 0`).
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import shutil
import sys
import tarfile
import time
from pathlib import Path

MODELS = {"claims-source": ("claims", {"claims_view": "source"}),  # bench/benchmark.py's recipes of the ensemble
          "dae-arcs-full": ("dae", {})}


def log(message: str) -> None:
    """A progress line on stderr, stamped with the time."""
    print(f"[airgapped {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def write_xz(path: Path, value) -> None:
    """JSON, xz-compressed: the rows' text travels in a tenth of its size."""
    path.write_bytes(lzma.compress(json.dumps(value).encode(), preset=6))


def read_xz(path: Path):
    """write_xz's value."""
    return json.loads(lzma.decompress(path.read_bytes()))


def shrunk(weights: dict) -> dict:
    """The encoder small enough to travel (64 MiB with the data): half precision, the word embeddings (half the
    weights) in int8 with a scale per row (at most 0.4% of the row's largest value off)."""
    import torch

    out = {}
    for name, w in weights.items():
        if name.endswith("word_embeddings.weight"):
            scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 127
            out[name + ".int8"], out[name + ".scale"] = (w / scale).round().to(torch.int8), scale.half()
        else:
            out[name] = w.half() if w.is_floating_point() else w
    return out


def restored(weights: dict) -> dict:
    """shrunk's weights back in fp32, as the trainer loads them."""
    out = {}
    for name, w in weights.items():
        if name.endswith(".int8"):
            base = name[:-len(".int8")]
            out[base] = w.float() * weights[base + ".scale"].float()
        elif not name.endswith(".scale"):
            out[name] = w.float() if w.is_floating_point() else w
    return out


def write_stand_ins(folder: Path) -> None:
    """spaCy's English stop-word list (the one transforms.views reads, as spaCy ships it: MIT), as a package of its own.
    Beam needs none: the trainer's fit and the scorers import none of it (.importlinter checks)."""
    import spacy.lang.en.stop_words as stop_words

    packages = {f"{p}/__init__.py": "" for p in ("spacy", "spacy/lang", "spacy/lang/en")}
    for name, source in packages.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(source)
    shutil.copy(stop_words.__file__, folder / "spacy/lang/en/stop_words.py")


def splits(splitter, rows: dict) -> tuple[dict, str]:
    """(each row's split by its key, in key order: [blocks, summary sentences], or, for a row whose texts no model can
    read (an empty text: the API's one bad-text rule), its reason as the score cache keeps one; those rows counted by
    reason in words): a bad row is skipped and counted, never the end of the pack."""
    from collections import Counter

    from entailgen.training.scoring.cache import cached
    from entailgen.training.scoring.unscorable import Unscorable

    keys = sorted(rows)
    split = dict(zip(keys, splitter.split_rows([rows[k] for k in keys])))
    bad = Counter(part.error_type for part in split.values() if isinstance(part, Unscorable))
    said = ", ".join(f"{kind} {n}" for kind, n in sorted(bad.items()))
    return ({k: cached(part) if isinstance(part, Unscorable) else [list(part[0]), list(part[1])]
             for k, part in split.items()}, f"{sum(bad.values())} unscorable, skipped: {said}" if bad else "")


def read_split(path: Path) -> dict:
    """splits()' split as DocumentScorer.scored takes it: a row pack skipped is its Unscorable (its reason kept)."""
    from entailgen.training.scoring.cache import restored

    return {k: part if isinstance(part, list) else restored(part) for k, part in read_xz(path).items()}


def pack(opts) -> None:
    """Everything the GPU machine cannot make itself, into one folder."""
    from dataclasses import asdict

    import torch
    from safetensors.torch import load_file, save_file

    sys.path.insert(0, str(Path(__file__).parent))
    from benchmark import SETS, recut, row_key  # bench/benchmark.py: the same rows and cache keys
    from entailgen.training.benchmarks.summac import read_benchmark
    from entailgen.training.scoring.document_scorer import DocumentScorer
    from entailgen.training.fitting.encoder import default_encoder_path
    from entailgen.transforms.parser import Parser, ParserConfig, spacy_model_id

    bundle = opts.bundle
    bundle.mkdir(parents=True, exist_ok=True)
    files = [str(opts.summac / f"{s}.json") for s in SETS if (opts.summac / f"{s}.json").is_file()]
    rows, _, _ = recut(read_benchmark(files))
    unique = {row_key((r.document, r.claim)): (r.document, r.claim) for r in rows}
    splitter = DocumentScorer(None, "sentence", pair_scores=lambda cells: [])  # the parser only
    split, skipped = splits(splitter, unique)
    write_xz(bundle / "split.json.xz", split)
    sentences = sorted({s for part in split.values() if isinstance(part, list) for s in part[1]})  # DaeScorer's
    parsed = Parser(ParserConfig()).tokens(sentences)
    write_xz(bundle / "parsed.json.xz", {s: [asdict(t) for t in tokens] for s, tokens in zip(sentences, parsed)})
    (bundle / "parser.txt").write_text(spacy_model_id())  # the score caches' names hold it (cache_name)
    log(f"{len(unique)} rows split{f' ({skipped})' if skipped else ''}, {len(sentences)} summary sentences parsed")
    with tarfile.open(bundle / "datasets.tar.xz", "w:xz") as tar:
        for name in sorted({MODELS[m][0] for m in opts.models}):
            tar.add(str((opts.work / name).resolve()), arcname=name)
    encoder = Path(default_encoder_path())
    (bundle / "encoder").mkdir(exist_ok=True)
    for f in encoder.iterdir():  # config and tokenizer as they are, the weights shrunk
        if f.is_file() and f.suffix != ".safetensors" and not f.name.startswith("."):
            shutil.copy(f, bundle / "encoder" / f.name)
    save_file(shrunk(load_file(str(encoder / "model.safetensors"))), str(bundle / "encoder" / "model.safetensors"),
              metadata={"format": "pt"})
    write_stand_ins(bundle / "py")
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    log(f"bundle {bundle}: {size / 2 ** 20:.1f} MiB (torch {torch.__version__} here)")


def run(opts) -> None:
    """Train the bench's ensemble models with entailgen's trainer, then score every row's cells on the GPU; a call
    again on the same (still warm) machine keeps what an earlier one trained and scored there."""
    tmp = Path(opts.tmp)
    (tmp / "pkg").mkdir(parents=True, exist_ok=True)
    if not (tmp / "pkg" / "entailgen").exists():  # the checkout is the package
        os.symlink(Path(__file__).resolve().parent.parent, tmp / "pkg" / "entailgen")
    sys.path[:0] = [str(tmp / "pkg"), str(opts.bundle.resolve() / "py"), str(Path(__file__).parent)]
    import torch
    from benchmark import cache_name, cached  # bench/benchmark.py's cache, so the bench reads these
    from safetensors.torch import load_file, save_file

    import entailgen.transforms.parser as parse
    from entailgen.schemas.records import Token
    from entailgen.training.scoring.document_scorer import DocumentScorer
    from entailgen.training.scoring.scorers import model_pair_scores
    from entailgen.training.fitting.trainer import TrainOptions, fit

    log(f"torch {torch.__version__}, {torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}")
    with tarfile.open(opts.bundle / "datasets.tar.xz") as tar:
        tar.extractall(tmp / "data", filter="data")
    encoder = tmp / "encoder"
    shutil.copytree(opts.bundle / "encoder", encoder, dirs_exist_ok=True)
    save_file(restored(load_file(str(encoder / "model.safetensors"))), str(encoder / "model.safetensors"),
              metadata={"format": "pt"})
    split = read_split(opts.bundle / "split.json.xz")
    parsed = {s: [Token(**t) for t in tokens] for s, tokens in read_xz(opts.bundle / "parsed.json.xz").items()}

    class Parsed:
        """The parser, as the parses made where spaCy is."""

        def __init__(self, config):
            self.config, self.name = config, "parsed-here"

        def tokens(self, texts):
            return (parsed[t] for t in texts)

    import entailgen.training.scoring.cache as score_cache
    import entailgen.training.scoring.document_scorer as document_scorer
    import entailgen.training.scoring.scorers as scorers

    parse.Parser = document_scorer.Parser = scorers.Parser = Parsed  # the name DocumentScorer and DaeScorer build
    pipeline = (opts.bundle / "parser.txt").read_text()
    score_cache.spacy_model_id = lambda: pipeline  # the parses' pipeline, so cache_name(out) is the one made here
    opts.out.mkdir(parents=True, exist_ok=True)
    models, done = tmp / "models", tmp / "out"  # done: what this machine made, kept for a rerun while it stays warm
    done.mkdir(exist_ok=True)
    for name in opts.models:
        dataset, view = MODELS[name]
        out = models / name
        out.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        if (out / "train.json").is_file():  # trained by an earlier call on this machine: not again
            summary = json.loads((out / "train.json").read_text())
        else:
            summary = fit(str(tmp / "data" / dataset), str(out), TrainOptions(
                encoder=str(encoder), epochs=opts.epochs, device=opts.device, progress=False,
                max_examples=opts.limit or (None if view else opts.max_train_full), **view))
        log(f"{name}: trained in {time.perf_counter() - start:.0f} s, dev accuracy {summary['dev_accuracy']}, "
            f"{summary['counts']['train']}")
        cache = done / cache_name(out)
        if not cache.is_file():
            start, keys = time.perf_counter(), sorted(split)[:opts.limit]
            scorer = DocumentScorer(str(out), "sentence",
                                    pair_scores=model_pair_scores(str(out), opts.device, opts.batch_size,
                                                                  precision="fp32"))  # what cache_name(out) names
            results = scorer.scored([("", "")] * len(keys), split=[split[k] for k in keys])
            cache.write_text(json.dumps({k: cached(r) for k, r in zip(keys, results)}))
            log(f"{name}: {len(keys)} rows scored in {time.perf_counter() - start:.0f} s")
        shutil.copy(cache, opts.out / cache.name)
        with tarfile.open(opts.out / f"{name}.tar", "w") as tar:  # each model as it is done: every file but the weights
            for f in sorted(out.iterdir()):
                if f.is_file() and f.suffix != ".safetensors":
                    tar.add(str(f), arcname=f"{name}/{f.name}")


def unpack(opts) -> None:
    """The GPU machine's results as a bench work dir: models' small files, score caches, the datasets linked."""
    work = opts.work
    (work / "scores").mkdir(parents=True, exist_ok=True)
    for model in opts.results.glob("*.tar"):
        with tarfile.open(model) as tar:
            tar.extractall(work / "models", filter="data")
    for f in opts.results.glob("*.json"):
        shutil.copy(f, work / "scores" / f.name)
    for dataset in ("claims", "paraphrase", "dae"):  # the bench's datasets of these models, so it makes none again
        if not (work / dataset).exists() and (opts.datasets / dataset).exists():
            (work / dataset).symlink_to((opts.datasets / dataset).resolve())
    log(f"{work}: {', '.join(sorted(p.name for p in (work / 'scores').iterdir()))}")


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    verbs = args.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("pack")
    p.add_argument("--summac", type=Path, required=True)
    p.add_argument("--work", type=Path, required=True, help="a bench work dir holding the claims and dae datasets")
    p.add_argument("--bundle", type=Path, required=True)
    r = verbs.add_parser("run")
    r.add_argument("--bundle", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--tmp", default="/tmp/airgapped")
    r.add_argument("--epochs", type=int, default=3)
    r.add_argument("--max-train-full", type=int, default=50000)
    r.add_argument("--batch-size", type=int, default=256, help="cells scored per forward pass")
    r.add_argument("--device", default="cuda")
    r.add_argument("--limit", type=int, help="a dry run: train on this many rows and score this many")
    u = verbs.add_parser("unpack")
    u.add_argument("results", type=Path)
    u.add_argument("--work", type=Path, required=True)
    u.add_argument("--datasets", type=Path, required=True, help="the work dir pack read the datasets from")
    for verb in (p, r):
        verb.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS),
                          help="which of the bench's ensemble models (pack their datasets, train and score them)")
    opts = args.parse_args()
    {"pack": pack, "run": run, "unpack": unpack}[opts.verb](opts)


if __name__ == "__main__":
    main()
