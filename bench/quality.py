"""Does the data teach? The DAE paper's Table 2 and Table 3, and the recast factuality set, on real English text.

Source text: UD-EWT sentences in the decomp==0.3.2 wheel (UDS 2.0, CC BY-SA 4.0; its JSON is read, its code never run).
Pipeline: paraphrase family (Apertium round trips, h* by MiniLM) -> dae with all four augmentations (both run as
`entailgen run`) -> `entailgen.training.train` on the train split -> `entailgen.training.evaluate` on the test split.
Every stage's output is cached in --work, so a rerun skips what is finished (delete a stage's folder to redo it);
models are cached per training setting. Baselines (majority, lexical match, hypothesis-only) are measured in
the same run, on the same test rows, by evaluate.

Usage: python bench/quality.py [--work DIR] [--sentences 5000] [--max-train 3000] [--epochs 2] [--lr 1e-4]
       [--max-dev 500] [--device auto] [--encoder default] [--quick] [--stop-after data] [--models-only]
Budget: < 90 min on 2 CPU cores with the defaults (training sets sub-sampled; see docs/benchmarks/quality.md). On a
GPU machine without Beam, `--models-only` trains and evaluates on the datasets a CPU run left in --work.
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.ids import content_id
from entailgen.schemas.reader import load_manifest, read_dataset
from entailgen.schemas.records import RECORD_TYPES

import host  # bench/host.py, beside this script

SPLITS = "train=0.8,dev=0.1,test=0.1"
AUGMENT = "word_swap,synonym,hallucination,overlap"
# Table 3's training / test sources (Goyal & Durrett 2020 §5.3): auto-derived (§4 kinds), word swap, synonym,
# hallucination.
SOURCES = {"AD": ("gold", "identity", "top1", "bottom"), "WS": ("word_swap",), "S": ("synonym",),
           "H": ("hallucination",)}
# The paper's Table 3 (accuracy, train source -> test source); only these cells are published.
PAPER_TABLE_3 = {("WS", "WS"): 98.5, ("WS", "AD"): 71.6, ("AD", "WS"): 90.2, ("AD", "AD"): 88.4, ("AD", "S"): 82.9,
                 ("AD", "H"): 74.8}
PAPER_TABLE_2 = {"majority": 72.7, "lexical match": 74.2, "BERT": 86.9, "ELECTRA": 88.4}
RECAST_PAPER = {"hypothesis-only": 67.04, "majority": 50.0}
MIN_WORDS, MAX_WORDS = 6, 40


log = functools.partial(host.log, "quality")
entailgen = functools.partial(host.entailgen, "quality")


def finished(dataset: Path) -> bool:
    """A dataset is finished when its manifest exists (it is written last)."""
    return (dataset / "manifest.json").is_file()


def ewt_sentences(uds_files: list[str], n: int) -> list[str]:
    """n distinct EWT sentences of MIN..MAX words, picked by content hash (a fixed pseudo-random sample)."""
    from entailgen.transforms.io.uds import read_uds_json

    sentences = set()
    for path in uds_files:
        with open(path, "rb") as f:
            for record in read_uds_json(iter(lambda: f.read(1 << 20), b""), Path(path).name):
                text = getattr(record, "sentence", None)
                if text and MIN_WORDS <= len(text.split()) <= MAX_WORDS and "\t" not in text:
                    sentences.add(" ".join(text.split()))
    return sorted(sentences, key=lambda s: content_id("quality", s))[:n]


def write_subset(dataset: Path, out: Path, kinds: tuple[str, ...] = (), max_dev: int = 0) -> dict:
    """A copy of the dataset (only the rows of the given kinds, if any; at most max_dev dev rows, the first by content
    hash, if set) with a manifest the trainer verifies. The test split is kept whole; the baselines the manifest's
    stats hold describe the whole dataset, so they are kept only when no kind is left out."""
    manifest = load_manifest(str(dataset))
    record_type = RECORD_TYPES[manifest["record_type"]]
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shards, splits = [], {}
    for split in sorted(manifest["splits"]):
        rows = [r for r in read_dataset(str(dataset), split) if not kinds or r["kind"] in kinds]
        if split == "dev" and max_dev:
            rows = rows[:max_dev]
        relative = f"{split}/{split}-00000-of-00001.parquet"
        (tmp / split).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema(record_type)), tmp / relative,
                       compression="zstd")
        data = (tmp / relative).read_bytes()
        shards.append({"bytes": len(data), "path": relative, "rows": len(rows),
                       "sha256": hashlib.sha256(data).hexdigest(), "split": split})
        splits[split] = {"rows": len(rows), "shards": 1}
    dead = manifest["dead_letters"]
    (tmp / dead["path"]).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(dataset / dead["path"], tmp / dead["path"])
    subset = {**manifest, "shards": shards, "splits": splits, "stats": {} if kinds else manifest["stats"],
              "subset_of": {"dataset": str(dataset), "kinds": list(kinds), "max_dev": max_dev}}
    (tmp / "manifest.json").write_text(json.dumps(subset, indent=1, sort_keys=True))
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return subset


class Bench:
    """The stages, each skipped when its output is already in the work dir."""

    def __init__(self, opts):
        self.opts, self.work = opts, opts.work
        self.seconds: dict[str, float] = {}
        encoder = "minilm" if opts.encoder == "default" else Path(opts.encoder).name
        self.models_dir = self.work / (f"models-{encoder}-{opts.max_train or 'all'}x{opts.epochs}-lr{opts.lr:g}"
                                       f"-dev{opts.max_dev or 'all'}-{opts.device}")

    def timed(self, name: str, fn):
        start = time.perf_counter()
        out = fn()
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
        return out

    def uds_files(self) -> list[str]:
        from uds import extract, fetch_wheel  # bench/uds.py, beside this script

        cache = self.opts.cache
        cache.mkdir(parents=True, exist_ok=True)
        return extract(self.opts.wheel or fetch_wheel(cache), cache)

    def sentences(self) -> Path:
        path = self.work / f"ewt-{self.opts.sentences}.txt"
        if not path.exists():
            picked = ewt_sentences(self.uds_files(), self.opts.sentences)
            path.write_text("".join(s + "\n" for s in picked))
            log(f"{len(picked)} EWT sentences -> {path}")
        return path

    def dataset(self, name: str, args) -> Path:
        """`entailgen run` of args() (called only when the dataset is not finished yet) into work/name."""
        out = self.work / name
        if not finished(out):
            if self.opts.models_only:
                raise SystemExit(f"quality bench: --models-only needs the finished dataset {out}")
            self.timed(name, lambda: entailgen("run", *args(), "--output", str(out), "--splits", SPLITS,
                                               "--seed", "0", "--overwrite", "--quiet"))
        return out

    def subset(self, dataset: Path, name: str, kinds: tuple[str, ...] = ()) -> Path:
        out = self.work / "subsets" / f"{name}-dev{self.opts.max_dev or 'all'}"
        if not finished(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            self.timed("subsets", lambda: write_subset(dataset, out, kinds, self.opts.max_dev))
        return out

    def data(self) -> dict:
        paraphrase = self.dataset("paraphrase", lambda: ("paraphrase", "--input", str(self.sentences()),
                                                         "--export", "paranmt"))
        dae = self.dataset("dae", lambda: ("dae", "--input", str(paraphrase / "paranmt.tsv"), "--augment", AUGMENT))
        recast = self.dataset("recast", lambda: ("recast", *[f"--input={p}" for p in self.uds_files()],
                                                 "--phenomena", "factuality"))
        return {"paraphrase": paraphrase, "dae": dae, "recast": recast,
                "subsets": {source: self.subset(dae, source, kinds) for source, kinds in SOURCES.items()},
                "recast_train": self.subset(recast, "recast")}

    def model(self, name: str, dataset: Path) -> dict:
        """Train (cached per setting) through the trainer's API; returns its train.json."""
        from entailgen.training import TrainOptions, train

        out = self.models_dir / name
        if not (out / "train.json").is_file():
            shutil.rmtree(out, ignore_errors=True)
            log(f"train {name} on {dataset}")
            self.timed(f"train {name}", lambda: train(str(dataset), str(out), TrainOptions(
                encoder=self.opts.encoder, epochs=self.opts.epochs, lr=self.opts.lr, device=self.opts.device,
                max_examples=self.opts.max_train or None, progress=False)))
        return {"dir": out, **json.loads((out / "train.json").read_text())}

    def evaluate(self, model: dict, dataset: Path) -> dict:
        """The model on the dataset's test split (cached in MODEL/eval/<dataset name>.json)."""
        from entailgen.training import evaluate

        result = model["dir"] / "eval" / f"{dataset.name}.json"
        if not result.is_file():
            self.timed(f"evaluate {model['dir'].name}",
                       lambda: evaluate(str(model["dir"]), str(dataset), "test", device=self.opts.device))
        return json.loads(result.read_text())

    def models(self, data: dict) -> dict:
        """Table 2 is the AD-trained model on held-out AD arcs (the paper's Table 2 model learns from §4 data only),
        which is also Table 3's AD row: one model fewer to train. The recast model trains on the dev-capped copy and
        is tested on the dataset itself, whose manifest holds the hypothesis-only audit."""
        results = {"table3": {}, "trained": {}}
        for train in SOURCES:
            model = results["trained"][train] = self.model(train, data["subsets"][train])
            for test in SOURCES:
                results["table3"][train, test] = self.evaluate(model, data["subsets"][test])
        results["table2"] = results["table3"]["AD", "AD"]
        model = results["trained"]["recast"] = self.model("recast", data["recast_train"])
        results["recast"] = self.evaluate(model, data["recast"])
        return results


def data_report(data: dict) -> list[str]:
    lines = []
    for name in ("paraphrase", "dae", "recast"):
        total = load_manifest(str(data[name]))["counts"]["total"]
        skipped = load_manifest(str(data[name]))["counts"].get("skipped_by_reason", {})
        lines.append(f"{name}: read {total['read']}, written {total['written']}, skipped {total['skipped']} "
                     f"({', '.join(f'{k} {v}' for k, v in sorted(skipped.items())) or 'none'}), "
                     f"dead {total['dead_letters']}")
    subsets = {**{f"{k} ({', '.join(SOURCES[k])})": v for k, v in data["subsets"].items()},
               "recast (for training)": data["recast_train"]}
    for name, path in subsets.items():
        splits = load_manifest(str(path))["splits"]
        lines.append(f"  {name}: " + ", ".join(f"{s} {v['rows']}" for s, v in sorted(splits.items())))
    return lines


def training_report(trained: dict) -> list[str]:
    """What each model saw, how it went and how fast (train.json): the sub-sample is stated, not hidden."""
    lines = ["model  | rows used (left out) | steps | dev accuracy by epoch | train s | examples/s | device"]
    for name, t in trained.items():
        counts = t["counts"]["train"]
        left = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("read", "used")) or "none"
        lines.append(f"{name:<6} | {counts['used']} ({left}) | {t['steps']} | {t['dev_accuracy']} | {t['train_s']} | "
                     f"{t['examples_per_s']} | {t['device']}")
    return lines


def table2(result: dict) -> list[str]:
    """Table 2 from `entailgen evaluate`'s JSON (percentages): its table_2 section is the held-out §4 arcs."""
    arcs = result["table_2"]
    acc, f1, majority, lexical = (arcs.get(k) for k in ("accuracy", "f1", "majority_accuracy",
                                                        "lexical_match_accuracy"))
    fmt = lambda v: "n/a" if v is None else f"{v:.1f}"
    lines = ["Table 2 (held-out auto-derived §4 arcs, test split)      | ours  | paper",
             f"majority                                                 | {fmt(majority):>5} | 72.7",
             f"lexical match                                            | {fmt(lexical):>5} | 74.2",
             f"trained on AD (MiniLM; paper: BERT 86.9, ELECTRA 88.4)   | {fmt(acc):>5} | 88.4",
             f"trained model F1 (not-entailed arcs)                     | {fmt(f1):>5} |"]
    if acc is not None and lexical is not None:
        gap = acc - lexical
        lines.append(f"model - lexical match: {gap:+.1f} points (target >= +5: {'MET' if gap >= 5 else 'NOT MET'}; "
                     "paper +14.2)")
    return lines


def table3(results: dict) -> list[str]:
    acc = {k: v["overall"]["accuracy"] for k, v in results.items()}
    fmt = lambda v: "  n/a" if v is None else f"{v:5.1f}"
    lines = ["Table 3 (rows: trained on; columns: tested on; ours / paper)",
             "train \\ test | " + " | ".join(f"{t:^13}" for t in SOURCES)]
    for train in SOURCES:
        cells = [f"{fmt(acc[train, test])} / {PAPER_TABLE_3.get((train, test), '  -  ')!s:>5}" for test in SOURCES]
        lines.append(f"{train:>12} | " + " | ".join(cells))
    ws_ws, ws_ad, ad_ad = acc["WS", "WS"], acc["WS", "AD"], acc["AD", "AD"]
    if None not in (ws_ws, ws_ad, ad_ad):
        holds = ws_ws > ws_ad and ad_ad > ws_ad
        lines.append(f"paper's pattern (WS-trained strong on WS, weak on AD; AD-trained better on AD): "
                     f"{'HOLDS' if holds else 'DOES NOT HOLD'} (WS->WS {ws_ws:.1f}, WS->AD {ws_ad:.1f}, "
                     f"AD->AD {ad_ad:.1f})")
    return lines


def recast_report(result: dict) -> list[str]:
    """The pair classifier's test accuracy next to the manifest's audit baselines for factuality."""
    factuality = result["per_phenomenon"].get("factuality", {})
    acc, hyp, majority = (factuality.get(k) for k in ("accuracy", "hypothesis_only_accuracy", "majority_accuracy"))
    fmt = lambda v: "n/a" if v is None else f"{v:.2f}"
    return [f"Recast factuality (UDS, test split): trained model {fmt(acc)}, hypothesis-only {fmt(hyp)} "
            f"(bench/trials/factuality_audit.py: 67.04), majority {fmt(majority)} (50.0)"]


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--work", type=Path, default=Path.home() / ".cache" / "entailgen" / "quality")
    args.add_argument("--sentences", type=int, default=5000, help="EWT sentences paraphrased (>= 5000 for the record)")
    args.add_argument("--max-train", type=int, default=3000, help="training rows per model (a sub-sample; 0: all)")
    args.add_argument("--max-dev", type=int, default=500, help="dev rows for picking the best epoch (0: all)")
    args.add_argument("--epochs", type=int, default=2)
    args.add_argument("--lr", type=float, default=1e-4,
                      help="the trainer's default 2e-5 (the authors', for BERT-size encoders on far more steps) leaves "
                           "MiniLM at lexical match in this budget; see docs/benchmarks/quality.md")
    args.add_argument("--device", default="auto", help="auto, cpu or cuda")
    args.add_argument("--encoder", default="default", help="the trainer's --encoder (default: the packaged MiniLM)")
    args.add_argument("--quick", action="store_true", help="smoke run: 60 sentences, 64 training rows, 1 epoch")
    args.add_argument("--wheel", type=Path)
    args.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "entailgen")
    args.add_argument("--stop-after", choices=("data", "models"), default="models")
    args.add_argument("--models-only", action="store_true",
                      help="only train and evaluate, on the datasets already in --work (a GPU machine without Beam)")
    opts = args.parse_args()
    if opts.quick:
        opts.sentences, opts.max_train, opts.max_dev, opts.epochs = 60, 64, 64, 1
        opts.work = opts.work.with_name(opts.work.name + "-quick")
    opts.work.mkdir(parents=True, exist_ok=True)
    bench = Bench(opts)
    started = time.perf_counter()
    print(host.describe(f"sentences {opts.sentences}, max train rows {opts.max_train or 'all'}, max dev rows "
                        f"{opts.max_dev or 'all'}, epochs {opts.epochs}, lr {opts.lr:g}, device {opts.device}, "
                        f"encoder {opts.encoder}" + (" (QUICK smoke run: figures mean nothing)" if opts.quick else "")),
          flush=True)
    data = bench.data()
    lines = data_report(data)
    results = bench.models(data) if opts.stop_after == "models" else None
    if results is not None:
        lines += ["", *training_report(results["trained"]), "", *table2(results["table2"]), "",
                  *table3(results["table3"]), "", *recast_report(results["recast"])]
    wall = time.perf_counter() - started
    lines += ["", "seconds by stage (this run; cached stages not rerun): "
              + ", ".join(f"{k} {v:.0f}" for k, v in bench.seconds.items()),
              f"whole run {wall:.0f} s ({wall / 60:.1f} min; budget 90 min on 2 CPU cores)"]
    print("\n".join(lines))
    summary = {"options": {k: str(v) for k, v in vars(opts).items()}, "seconds": bench.seconds, "wall_s": wall,
               "report": lines}
    (opts.work / "quality.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    sys.exit(main())
