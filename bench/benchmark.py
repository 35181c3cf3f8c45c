"""Does the data catch real errors? entailgen-trained detectors on the human-labelled SummaC benchmark (Laban et al. 2022).

Data: what `entailgen benchmarks fetch summac --to DIR` writes (--summac DIR; never committed: news articles, other
licences): XSumFaith and Polytope with SummaC's own two cuts and FRANK with its own, made from their sources, and the
SummaC repository's SummEval val rows.
A set with a val cut but no test cut (the repository ships val cuts only; the test cuts come from its benchmark
download) is cut in two by a hash of its document: one half stays the val cut, the other becomes the test cut, and no
document is in both. The figures are then on that half, not on the paper's test cut: docs/benchmarks/summac.md says
which. SummaC's own XSumFaith and Polytope cuts share documents (a document's summaries go to val and test in turn),
so of those the val rows of one half's documents and the test rows of the other half's are kept.
Training text: the val-cut documents only, unlabelled, less any that is the same article as a test-cut document of any
set (training.benchmarks.held_out: re-spaced, re-cased or cut off; the sets share articles), so no label and no test-cut
article reaches any training step; and for recast, whose input is annotations, UDS 2.0's event factuality over UD-EWT
(the decomp wheel, from PyPI).
Pipeline (the figure): the val documents -> `entailgen detector` (claims; sentences -> paraphrase -> dae; the claims
source view's model and the DAE arc model; `--exclude-documents` over the recut rows' test cut applies the same rule
again) -> `entailgen evaluate DETECTOR --benchmark summac rows.jsonl` (SummaC-ZS, the members joined by the mean of
their log-odds, thresholds chosen on the val cut, test balanced accuracy beside unigram and NER overlap). The recut
rows are written to the work dir once, so the detector's exclusion and the evaluation read the same cuts.
Ablations (`--models FOLDER...`): each family alone, the mix, the Conv head, the stricter joins; val picks among them.

Usage: python bench/benchmark.py --summac DIR [--work DIR] [--epochs 1] [--max-train-full 12000] [--encoder E]
    [--device cuda]
       python bench/benchmark.py --summac DIR --models FOLDER... [--max-train 1500] [--granularity ...] [--wheel W]
    [--conv-rows 1000]
Stages are cached in --work (the detector resumes a killed build itself; scores are cached a chunk at a time, by the
code of `entailgen evaluate --benchmark`, under each model's checksums and the scoring code's sha256, so a killed run
keeps what it scored and a model trained again, or scored by other code, is scored again). On a GPU machine the
same command trains on more rows: --device cuda --epochs 3 --max-train-full 50000 (docs/benchmarks/summac.md,
"Reproduce"); on a GPU node without Beam or spaCy, bench/airgapped.py.
"""
from __future__ import annotations

import argparse
import bisect
import functools
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path

import host  # bench/host.py, beside this script
# evaluate's score cache, driven by Bench.scored; bench/airgapped.py writes its caches with these names from here
from entailgen.training.benchmarks.held_out import held_out_of
from entailgen.training.benchmarks.sources.summac import document_half  # halves a set whose cuts share documents
from entailgen.training.scoring.cache import cache_name, cached, cached_results, row_key  # noqa: F401

SETS = ("xsumfaith", "polytope", "summeval", "frank")  # the four; FactCC and CoGenSumm are scored if given
# one model per family, scored together (the mean of their log-odds): run 7 found claims data suits XSum's summaries and
# the dae arc data CNN/DM's
ENSEMBLE = ("claims, source view", "dae arc model (full)")
ENSEMBLE_NAME = "ensemble: claims source view + dae arc model (full)"
# the same two, a row as consistent as the stricter of them finds it: "any error" (bench/trials/rules/stricter.md)
STRICTER_NAME = "ensemble, stricter member (min): claims source view + dae arc model (full)"
# the same, each model's scores first put on one scale, their quantiles among the val rows' (stricter-calibrated.md)
ONE_SCALE_NAME = ("ensemble, stricter member on one scale (min of val quantiles): claims source view + dae arc model "
                  "(full)")


log = functools.partial(host.log, "benchmark")
entailgen = functools.partial(host.entailgen, "benchmark")


def recut(rows: list) -> tuple[list, list[str], list[str]]:
    """Rows in a val and a test cut that share no document. A set holding only val rows is cut in two by document_half
    (named in the second item); a set whose two cuts hold the same documents (SummaC's own XSumFaith and Polytope cuts
    take a document's summaries in turn) keeps the val rows of val-half documents and the test rows of test-half ones
    (the third item), so the training text, the val documents, holds no test document."""
    documents: dict[str, dict[str, set]] = {}
    for r in rows:
        documents.setdefault(r.dataset, {}).setdefault(r.cut, set()).add(r.document)
    halved = sorted(d for d, cuts in documents.items() if set(cuts) == {"val"})
    shared = sorted(d for d, cuts in documents.items() if cuts.get("val", set()) & cuts.get("test", set()))
    return ([r._replace(cut=document_half(r.document)) if r.dataset in halved else r for r in rows
             if r.dataset not in shared or r.cut == document_half(r.document)], halved, shared)


def val_documents(rows: list, path: Path) -> Path:
    """The distinct documents of the val cut as claims-family JSON Lines ({"id", "text"}): unlabelled training text,
    without any that is a test-cut article of any set (training.benchmarks.held_out: the sets share articles)."""
    docs = sorted({hashlib.sha256(r.document.encode()).hexdigest(): r.document for r in rows if r.cut == "val"}.items())
    held = held_out_of(rows)
    kept = [(h, d) for h, d in docs if d not in held]
    path.write_text("".join(json.dumps({"id": h[:16], "text": d}) + "\n" for h, d in kept))
    log(f"{len(kept)} val-cut documents -> {path} ({len(docs) - len(kept)} held out: a test-cut article of some set)")
    return path


def val_sentences(documents: Path, n: int, path: Path) -> Path:
    """n distinct sentences of 8-40 words from the val documents (seeded): the paraphrase -> dae route's input."""
    sentences = set()
    for line in documents.read_text().splitlines():
        for s in re.split(r"(?<=[.!?])\s+", json.loads(line)["text"]):
            if 8 <= len(s.split()) <= 40:
                sentences.add(" ".join(s.split()))
    picked = sorted(sentences)
    random.Random(0).shuffle(picked)
    path.write_text("".join(s + "\n" for s in picked[:n]))
    return path


class Bench:
    """The stages, each skipped when its output is already in the work dir."""

    def __init__(self, opts):
        self.opts, self.work = opts, opts.work
        self.seconds: dict[str, float] = {}

    def timed(self, name: str, fn):
        start = time.perf_counter()
        out = fn()
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
        return out

    def dataset(self, name: str, *args: str) -> Path:
        out = self.work / name
        if not (out / "manifest.json").is_file():
            self.timed(f"run {name}", lambda: entailgen("run", *args, "--output", str(out), "--seed", "0",
                                                        "--overwrite", "--quiet"))
        return out

    def model(self, name: str, *datasets_and_flags: str) -> Path:
        out = self.work / "models" / name
        if not (out / "train.json").is_file():
            self.timed(f"train {name}", lambda: entailgen(
                "train", *datasets_and_flags, "--output", str(out), "--epochs", str(self.opts.epochs), "--overwrite",
                "--quiet", "--device", self.opts.device,
                *(("--encoder", self.opts.encoder) if self.opts.encoder else ())))
        return out

    def conv(self, model: Path, claims: Path) -> Path:
        out = self.work / "models" / f"{model.name}.conv"
        if not (out / "conv.json").is_file():
            self.timed(f"train-conv {model.name}", lambda: entailgen(
                "train-conv", str(model), str(claims), "--output", str(out), "--max-rows", str(self.opts.conv_rows),
                "--overwrite", "--device", self.opts.device))
        return out

    def scored(self, model: Path, pairs: list) -> list:
        """DocumentScorer.scored of every row (an Unscorable where the model cannot score it), through evaluate's
        score cache (training.scoring.cache.cached_results) kept in the work dir: a set added later scores only its
        own rows, a killed run keeps every chunk it finished, and a model trained again, or scored by changed code, is
        scored again (cache_name)."""
        from entailgen.training.scoring.document_scorer import DocumentScorer

        blocks, built = self.opts.granularity, []
        cache = self.work / ("scores" if blocks == "sentence" else f"scores-{blocks}") / cache_name(model, blocks)

        def make():
            built.append(model)
            return DocumentScorer(str(model), blocks, device=self.opts.device, precision="fp32")  # the cache's fp32

        start = time.perf_counter()
        (results,) = cached_results([make], pairs, [str(cache)], model.name)
        if built:  # rows were scored, not only read
            self.seconds[f"score {model.name}"] = time.perf_counter() - start
        return results


def scorable(result) -> bool:
    """Whether Bench.scored could score the row (else its result is the Unscorable saying why)."""
    from entailgen.training.scoring.scorers import Unscorable

    return not isinstance(result, Unscorable)


def zs_results(results: list) -> list:
    """Bench.scored's results as each row's score, or its Unscorable (evaluate_benchmark scores it 0.0, counted)."""
    from entailgen.training.scoring.document_scorer import score_of

    return [score_of(r) for r in results]


def zs_scores(results: list) -> list[float]:
    """Bench.scored's results as scores, 0.0 for a row the model could not score (every_scored: evaluate's rule)."""
    from entailgen.training.scoring.unscorable import every_scored

    return every_scored(zs_results(results))


def ensemble_results(results: list[list], join=None) -> list:
    """Several models' Bench.scored results joined row by row (by default ensemble_score, the mean of log-odds; min,
    the stricter member): a row one model could not score takes the others' score, the first model's Unscorable where
    none could."""
    from entailgen.training.scoring.summac import ensemble_score

    join = join or ensemble_score
    return [join(s) if (s := [r["score"] for r in rs if scorable(r)]) else rs[0] for rs in zip(*results)]


def ensemble_scores(results: list[list], join=None) -> list[float]:
    """ensemble_results as scores, 0.0 where no model could score the row (every_scored: evaluate's rule)."""
    from entailgen.training.scoring.unscorable import every_scored

    return every_scored(ensemble_results(results, join))


def on_one_scale(results: list, val: list[bool]) -> list:
    """Bench.scored's results with each score as its quantile among the val rows' scores (the share at or below it, ties
    counted half; no label read): two models' scores compared row by row mean the same."""
    reference = sorted(r["score"] for r, v in zip(results, val) if v and scorable(r))

    def quantile(score: float) -> float:
        return (bisect.bisect_left(reference, score) + bisect.bisect_right(reference, score)) / (2 * len(reference))

    return [{"score": quantile(r["score"])} if scorable(r) else r for r in results]


def benchmark_rows(rows: list, path: Path) -> Path:
    """The recut rows as JSON Lines `evaluate --benchmark` and `detector --exclude-documents` read: one cut each."""
    path.write_text("".join(json.dumps({"dataset": r.dataset, "document": r.document, "claim": r.claim,
                                        "label": r.label, "cut": r.cut, **({"model_name": r.model_name}
                                                                            if r.model_name else {})}) + "\n"
                            for r in rows))
    return path


def detector_figure(opts, rows: list) -> None:
    """The figure: `entailgen detector` from the val documents, then `entailgen evaluate --benchmark summac`."""
    table = benchmark_rows(rows, opts.work / "rows.jsonl")
    documents = val_documents(rows, opts.work / "val_documents.jsonl")
    detector = opts.work / "detector"
    if not (detector / "detector.json").is_file():
        entailgen("detector", "--input", str(documents), "--exclude-documents", str(table), "--output", str(detector),
                  "--epochs", str(opts.epochs), "--max-train", str(opts.max_train_full), "--device", opts.device,
                  "--claims-per-document", str(opts.claims_per_document), "--sentences", str(opts.sentences),
                  *(("--encoder", opts.encoder) if opts.encoder else ()))
    entailgen("evaluate", str(detector), "--benchmark", "summac", str(table), "--device", opts.device)


def main() -> None:
    from entailgen.transforms.claims.blocks import GRANULARITIES

    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--summac", type=Path, required=True, help="folder of the SummaC repository's data/<set>.json")
    args.add_argument("--work", type=Path, default=Path.home() / ".cache" / "entailgen" / "benchmark")
    args.add_argument("--epochs", type=int, default=1)
    args.add_argument("--max-train", type=int, default=1500,
                      help="training rows drawn per epoch by every model but the claims source views', which take "
                           "every claims row (the CPU budget: a document-view pair is 128 tokens)")
    args.add_argument("--conv-rows", type=int, default=1000,
                      help="claims rows the Conv head is fitted on (0: no Conv head, as for models whose weights "
                           "stayed on another machine: bench/airgapped.py)")
    args.add_argument("--claims-per-document", type=int, default=4)
    args.add_argument("--sentences", type=int, default=1500, help="val-document sentences for paraphrase -> dae")
    args.add_argument("--encoder", help="the encoder to train (entailgen train --encoder; default: its default)")
    args.add_argument("--device", default="cpu", help="cpu or cuda, for training and scoring")
    args.add_argument("--max-train-full", type=int, default=12000,
                      help="training rows drawn per epoch by the full-size recipes (mix-full, dae-arcs-full, "
                           "recast-factuality)")
    args.add_argument("--granularity", default="sentence", choices=GRANULARITIES,
                      help="the document's blocks for SummaC-ZS, scored and cached apart (the Conv head, fitted on "
                           "sentence blocks, is left out with other blocks)")
    args.add_argument("--wheel", type=Path, help="the decomp 0.3.2 wheel for recast's UDS data (default: fetched "
                      "from PyPI into --work/uds)")
    args.add_argument("--models", nargs="+", metavar="FOLDER",
                      help="ablations: train and score these models (their work folders: claims-source, dae-arcs, "
                           "...; `all` for every one) and pick among them on val, instead of the detector's figure")
    opts = args.parse_args()
    from entailgen.training.benchmarks.baselines import NER, UNIGRAM, ner_overlap_scores, unigram_overlap_scores
    from entailgen.training.benchmarks.summac import distinct_rows, evaluate_benchmark, format_table, read_benchmark
    from entailgen.training.scoring.summac import conv_scores, load_conv
    from entailgen.transforms.claims.claims import TRANSFORMATIONS

    def plus(name: str) -> str:
        """FactCC's transformations (the default) and one of entailgen's."""
        return ",".join(TRANSFORMATIONS + (name,))

    n, full = str(opts.max_train), str(opts.max_train_full)
    claims, compressed, extrinsic, dae, recast = (str(opts.work / d) for d in (
        "claims", "claims-compression", "claims-extrinsic", "dae", "recast"))  # bench.dataset's
    recipes = {  # name -> (work folder, train arguments); --models picks some (cached ones are not trained again)
        "claims, source view": ("claims-source", claims, "--claims-view", "source"),
        "claims with compression, source view": ("claims-compression-source", compressed, "--claims-view", "source"),
        "claims with extrinsic, source view": ("claims-extrinsic-source", extrinsic, "--claims-view", "source"),
        "claims, contradicted view": ("claims-contradicted", claims, "--claims-view", "contradicted"),
        "claims, document view": ("claims-document", claims, "--claims-view", "document", "--max-examples", n),
        "dae arc model": ("dae-arcs", dae, "--max-examples", n),
        "dae arc model (full)": ("dae-arcs-full", dae, "--max-examples", full),
        "claims + dae pairs (mix 1:1)": ("mix", claims, dae, "--mix", "1,1", "--max-examples", n),
        # at the claims source view's size: by default 6,000 rows of each, about the source view's 18,000 pairs
        "claims + dae pairs (mix 1:1, full)": ("mix-full", claims, dae, "--mix", "1,1", "--max-examples", full),
        # recast needs annotations, not raw text: event factuality over UD-EWT (UDS 2.0), no benchmark text
        "recast factuality (UDS)": ("recast-factuality", recast, "--max-examples", full)}
    folders = [folder for folder, *_ in recipes.values()]
    if opts.models == ["all"]:
        opts.models = folders
    unknown = set(opts.models or ()) - set(folders)
    if unknown:
        args.error(f"--models: no model {', '.join(sorted(unknown))} (the folders: {', '.join(folders)})")
    chosen = [name for name in recipes if opts.models and recipes[name][0] in opts.models]
    needed = {claims} | {arg for name in chosen for arg in recipes[name][1:]}  # claims: the Conv head's rows
    opts.work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    files = [str(opts.summac / f"{s}.json") for s in SETS if (opts.summac / f"{s}.json").is_file()]
    rows, duplicates = distinct_rows(read_benchmark(files))  # a row given twice: once (counted in the notes)
    rows, halved, shared = recut(rows)
    print(host.describe(f"sets {', '.join(Path(f).stem for f in files)}; cut in two by document hash (no test cut in "
                        f"the files): {', '.join(halved) or 'none'}; val rows of val-half and test rows of test-half "
                        f"documents (cuts that share documents): {', '.join(shared) or 'none'}; epochs {opts.epochs}, "
                        f"max train rows {opts.max_train}, Conv rows {opts.conv_rows}, blocks {opts.granularity}"),
          flush=True)
    if not opts.models:
        return detector_figure(opts, rows)
    bench = Bench(opts)
    documents = val_documents(rows, opts.work / "val_documents.jsonl")
    for name, extra in (("claims", ()), ("claims-compression", ("--transformations", plus("compression"))),
                        ("claims-extrinsic", ("--transformations", plus("extrinsic")))):
        if str(opts.work / name) in needed:  # only what the chosen models train on
            bench.dataset(name, "claims", "--input", str(documents), "--claims-per-document",
                          str(opts.claims_per_document), *extra)
    if dae in needed:
        sentences = val_sentences(documents, opts.sentences, opts.work / "val_sentences.txt")
        paraphrase = bench.dataset("paraphrase", "paraphrase", "--input", str(sentences), "--export", "paranmt")
        bench.dataset("dae", "dae", "--input", str(paraphrase / "paranmt.tsv"), "--augment",
                      "word_swap,synonym,hallucination,overlap")
    if recast in needed:
        from uds import extract, fetch_wheel  # bench/uds.py: the UDS files of the decomp wheel (PyPI)

        cache = opts.work / "uds"
        cache.mkdir(exist_ok=True)
        uds = extract(opts.wheel or fetch_wheel(cache), cache)
        bench.dataset("recast", "recast", *[f"--input={p}" for p in uds], "--phenomena", "factuality")
    models = {name: bench.model(*recipes[name]) for name in chosen}
    pairs = [(r.document, r.claim) for r in rows]
    scored = {name: bench.scored(model, pairs) for name, model in models.items()}
    scorers = {f"{name} (ZS)": (lambda ps, s=zs_results(results): s) for name, results in scored.items()}
    candidates = list(models)
    if all(name in models for name in ENSEMBLE):
        members, val_rows = [scored[n] for n in ENSEMBLE], [r.cut == "val" for r in rows]
        joins = {ENSEMBLE_NAME: ensemble_results(members), STRICTER_NAME: ensemble_results(members, min),
                 ONE_SCALE_NAME: ensemble_results([on_one_scale(m, val_rows) for m in members], min)}
        for name, joined in joins.items():
            scorers[f"{name} (ZS)"] = lambda ps, s=joined: s
            candidates.append(name)
    scorers[UNIGRAM] = lambda ps: bench.timed("unigram overlap", lambda: unigram_overlap_scores(ps))
    scorers[NER] = lambda ps: bench.timed("NER overlap", lambda: ner_overlap_scores(ps))
    report = evaluate_benchmark(rows, scorers, duplicates=duplicates)  # an unscorable row: 0.0, counted in the notes
    # entailgen's figure: the model (or the ensemble) whose ZS overall balanced accuracy on the val cut is highest (val
    # only); then the Conv head, fitted on the claims dataset's rows (no benchmark label), of the best single model
    val = {name: sum(r["val_balanced_accuracy"] for r in report["scorers"][f"{name} (ZS)"]["per_dataset"].values())
           for name in candidates}
    picked, single = max(val, key=val.get), max(models, key=val.get)
    if opts.granularity == "sentence" and opts.conv_rows:
        head, _ = load_conv(str(bench.conv(models[single], claims)), str(models[single]))
        matrices = [r["matrix"] for r in scored[single] if scorable(r)]
        it = iter(conv_scores(head, matrices))
        conv = [next(it) if scorable(r) else r for r in scored[single]]
        report = evaluate_benchmark(rows, {**scorers, f"{single} (Conv)": lambda ps: conv}, duplicates=duplicates)
    wall = time.perf_counter() - started
    lines = [format_table(report), "",
             f"picked on the val cut (mean val balanced accuracy of ZS over the sets): {picked} "
             "(" + ", ".join(f"{n} {v / len(report['datasets']):.1f}" for n, v in val.items()) + ")",
             "training rows: " + "; ".join(f"{n}: {json.loads((m / 'train.json').read_text())['counts']['train']}"
                                           for n, m in models.items()),
             "seconds by stage (cached stages not rerun): "
             + ", ".join(f"{k} {v:.0f}" for k, v in bench.seconds.items()),
             f"whole run {wall:.0f} s ({wall / 60:.1f} min)"]
    print("\n".join(lines))
    (opts.work / "benchmark.json").write_text(json.dumps({"report": report, "picked": picked, "lines": lines,
                                                          "seconds": bench.seconds}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
