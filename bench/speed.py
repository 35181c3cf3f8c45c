"""Scoring and training speed (issue 41): the base's code (commit 95d1abf: fp32, its batching and parsing) and today's,
side by side in one run on the same rows and the same model, each a ratio to the base measured in that run.

Scoring: (document, summary) rows through DocumentScorer (SummaC-ZS, sentence blocks), 32 rows a call as `evaluate
--benchmark` scores them, the model loaded first (not timed; for onnx-* that includes building the ONNX graph, once
per model); paths `base` (95d1abf's code, fp32), `fp32`, `int8`, `onnx-fp32` and `onnx-int8` (today's code at that
--precision: torch, or ONNX Runtime). Each path runs in a child process of its own, in turns
(base, fp32, int8, base, ...), and keeps its best time; the load average (os.getloadavg) is read before and after each.
With labelled benchmark rows (SummaC layout: label, cut, dataset) each path's per-set test balanced accuracy is given
(threshold on val); rows without a cut are given val and test in turn. Training: `train` of one epoch on a dataset's
first N rows, the base's trainer against today's (length-bucketed batches), examples/s and dev accuracy.

The ceiling: the forward passes' FLOPs (2 x tokens x the encoder's linear weights, plus attention's 4 x tokens^2 x
hidden per layer) over the fp32 and int8 matmul rates this machine measures at the encoder's own shapes.

The base's code comes from `git archive 95d1abf` (or --base-tree, an extracted copy: a GPU node without the history).
Usage: python bench/speed.py --model MODEL_DIR [--rows FILE ...] [--n-rows 96] [--train DATASET] [--device cuda]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import host  # bench/host.py, beside this script

BENCH = "speed"
ROOT = Path(__file__).resolve().parent.parent  # the entailgen package (the repository root)
BASE_COMMIT = "95d1abf"
SCORE_CHUNK = 32  # rows per call, as training.scoring.cache.SCORE_CHUNK
WARM = ("The warm-up row is scored first. Its time is not counted.", "The warm-up row is not counted.")


# ---- in the child process: one path, timed -------------------------------------------------------------------------

def score_worker(args) -> dict:
    """Load the path's scorer, then time its scoring of the rows (SCORE_CHUNK rows a call); the scores come back."""
    import torch

    rows = [tuple(r) for r in json.loads(Path(args.rows_file).read_text())]
    if args.path == "base":
        from entailgen.training.document import DocumentScorer  # 95d1abf's module

        scorer = DocumentScorer(args.model, "sentence", device=args.device)
    else:
        from entailgen.training.scoring.document_scorer import DocumentScorer

        scorer = DocumentScorer(args.model, "sentence", device=args.device, precision=args.path)
    scorer.score_documents([WARM])  # the first call's one-off costs (allocator, spaCy's first batch), on no row's text
    load = os.getloadavg()
    start = time.perf_counter()
    scores = [s for i in range(0, len(rows), SCORE_CHUNK) for s in scorer.score_documents(rows[i:i + SCORE_CHUNK])]
    seconds = time.perf_counter() - start
    return {"path": args.path, "seconds": seconds, "rows_per_s": len(rows) / seconds, "scores": scores,
            "load": [load, os.getloadavg()], "threads": torch.get_num_threads()}


def train_worker(args) -> dict:
    """One epoch of `train` on the dataset's first --train-examples rows; examples/s over the epoch's steps (train.json's
    train_s: reading and steps, not loading or the dev pass) and dev accuracy."""
    from entailgen.training.fitting.trainer import TrainOptions, train

    load = os.getloadavg()
    options = TrainOptions(epochs=1, max_examples=args.train_examples, seed=0, progress=False, device=args.device)
    out = tempfile.mkdtemp(prefix="speed-train-")
    summary = train(args.train, os.path.join(out, "model"), options)
    used = summary["counts"]["train"]["used"]
    return {"path": args.path, "seconds": summary["train_s"], "examples": used,
            "examples_per_s": used / summary["train_s"], "dev_accuracy": summary["dev_accuracy"][-1],
            "load": [load, os.getloadavg()]}


def ceiling_worker(args) -> dict:
    """fp32 and int8 (dynamic) matmul rates at the encoder's shapes, and the cells' forward FLOPs (today's tokenizer
    and features: the same cells every path scores)."""
    import warnings

    import torch

    from entailgen.training.fitting.checkpoint import load_meta
    from entailgen.training.scoring.document_scorer import DocumentScorer
    from entailgen.training.fitting.features import pair_features

    meta = load_meta(args.model)
    cfg = meta["encoder_config"]
    hidden, inner, layers = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    rows = [tuple(r) for r in json.loads(Path(args.rows_file).read_text())]
    scorer = DocumentScorer(args.model, "sentence", pair_scores=lambda cells: [0.5] * len(cells))
    splits = scorer.split([d for d, _ in rows], [s for _, s in rows])
    tokenizer = __import__("transformers").AutoTokenizer.from_pretrained(args.model)
    lengths = []
    for i in range(0, len(splits), SCORE_CHUNK):  # the cells each call scores (distinct within a call)
        cells = dict.fromkeys((b, s) for blocks, summary in splits[i:i + SCORE_CHUNK] for b in blocks for s in summary)
        lengths += [len(f.input_ids) for f in (pair_features(tokenizer, b, s, 0, meta["max_length"]) for b, s in cells)
                    if not isinstance(f, str)]
    linear = layers * (4 * hidden * hidden + 2 * hidden * inner)  # q, k, v, output; the two feed-forward matrices
    flops = sum(2 * n * linear + layers * 4 * n * n * hidden for n in lengths)
    rates = {}
    x = torch.randn(32 * 64, hidden)  # a batch of 32 cells of 64 tokens
    for name, (k, n) in {"attention": (hidden, hidden), "up": (hidden, inner), "down": (inner, hidden)}.items():
        a = x if k == hidden else torch.randn(32 * 64, k)
        lin = torch.nn.Linear(k, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(lin), {torch.nn.Linear}, dtype=torch.qint8)
        with torch.inference_mode():
            for label, fn in (("fp32", lambda: lin(a)), ("int8", lambda: q(a))):
                fn()
                start, reps = time.perf_counter(), 20
                for _ in range(reps):
                    fn()
                rates.setdefault(label, {})[name] = 2 * a.shape[0] * k * n * reps / (time.perf_counter() - start)
    weights = {"attention": 4 * hidden * hidden, "up": hidden * inner, "down": inner * hidden}  # FLOP shares
    kept = {"fp32": rates["fp32"], "int8": {**rates["int8"], "down": rates["fp32"]["down"]}}  # int8_layers: down fp32
    mixed = {label: sum(weights.values()) / sum(weights[s] / r[s] for s in weights) for label, r in kept.items()}
    return {"cells": len(lengths), "tokens": sum(lengths), "flops": flops, "matmul_rates": rates,
            "model_rate": mixed, "load": os.getloadavg()}


# ---- in the parent: rows, the base tree, the turns ----------------------------------------------------------------

def sample_rows() -> list[dict]:
    """(document, summary) rows from samples/documents.jsonl: each document against each of its highlight lines and
    against a sentence of another document (an unsupported summary)."""
    docs = []
    for line in (ROOT / "samples" / "documents.jsonl").read_text().splitlines():
        row = json.loads(line)
        text = row.get("article") or row.get("text") or row.get("document")
        summary = row.get("highlights") or row.get("summary") or text.split(". ")[0] + "."
        docs.append((text, [s for s in summary.splitlines() if s.strip()]))
    rows = [{"document": d, "claim": s} for d, summaries in docs for s in summaries]
    rows += [{"document": d, "claim": docs[(i + 1) % len(docs)][1][0]} for i, (d, _) in enumerate(docs)]
    return rows


def benchmark_rows(paths: list[str], n: int, seed: int) -> list[dict]:
    """n rows drawn (seeded) from SummaC-layout files; a file's rows without a test cut are given val and test in
    turn, so each set has a threshold to choose and a cut to report."""
    from entailgen.training.benchmarks.summac import read_benchmark

    rows = read_benchmark(paths)
    rng = random.Random(seed)
    rng.shuffle(rows)
    out, turns = [], {}
    for r in rows[:n]:
        turns[r.dataset, r.label] = turns.get((r.dataset, r.label), -1) + 1  # each label in both cuts
        cut = r.cut if any(x.cut == "test" and x.dataset == r.dataset for x in rows) else ("val", "test")[
            turns[r.dataset, r.label] % 2]
        out.append({"document": r.document, "claim": r.claim, "label": r.label, "cut": cut, "dataset": r.dataset,
                    "id": r.id, "model_name": r.model_name, "given_id": r.given_id})  # which row it is (two
        # systems' identical summaries are two rows: evaluate_benchmark keeps them apart by these)
    return out


def base_tree(given: str | None, work: Path) -> Path:
    """A folder holding the base's package as `entailgen/` (PYTHONPATH for the base path's child)."""
    if given:
        return Path(given)
    tree = work / f"base-{BASE_COMMIT}"
    if not (tree / "entailgen" / "__init__.py").is_file():
        (tree / "entailgen").mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASE_COMMIT], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(tree / "entailgen")], input=archive.stdout, check=True)
    return tree


def child(kind: str, path: str, args, rows_file: str, tree: Path) -> dict:
    """Run one path in a child process (the base's on PYTHONPATH ahead of today's package) and read its result."""
    env = dict(os.environ)
    if path == "base":
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")])
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        command = [sys.executable, __file__, "--worker", kind, "--path", path, "--model", args.model or "",
                   "--rows-file", rows_file, "--device", args.device, "--result", out.name]
        if kind == "train":
            command += ["--train", args.train, "--train-examples", str(args.train_examples)]
        done = subprocess.run(command, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"speed bench: the {path} {kind} child failed:\n{done.stderr[-3000:]}")
        return json.loads(Path(out.name).read_text())


def in_turns(kind: str, paths: list[str], rate: str, opts, rows_file: str, tree: Path) -> dict:
    """Each path's best (fastest) run over --repeats turns, the paths taking turns (base, new, base, new, ...) so a
    change in the machine's load falls on all of them; every run's load is kept."""
    best: dict = {}
    for turn in range(opts.repeats):
        for path in paths:
            got = child(kind, path, opts, rows_file, tree)
            host.log(BENCH, f"{kind} turn {turn + 1} {path}: {got[rate]:.3f} {rate.replace('_per_s', '/s')}"
                            + (f", dev accuracy {got['dev_accuracy']}" if "dev_accuracy" in got else "")
                            + f", load {got['load'][0][0]:.2f} -> {got['load'][1][0]:.2f}")
            loads = best.get(path, {}).get("loads", []) + [got["load"]]
            if path not in best or got["seconds"] < best[path]["seconds"]:
                best[path] = got
            best[path]["loads"] = loads
    return best


def balanced_accuracies(rows: list[dict], scores: list[float]) -> dict:
    """Per-set test balanced accuracy (threshold chosen on val) of a path's scores, and their mean; a set whose cut
    lacks a label (too few rows drawn) is left out."""
    from entailgen.training.benchmarks.files import BenchmarkError
    from entailgen.training.benchmarks.summac import BenchmarkRow, check_datasets, evaluate_benchmark

    kept = []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        subset = [(i, BenchmarkRow(r["id"], r["document"], r["claim"], r["label"], r["cut"], r["dataset"],
                                   r["model_name"], given_id=r["given_id"]))
                  for i, r in enumerate(rows) if r["dataset"] == name]
        try:
            check_datasets([b for _, b in subset])
            kept += subset
        except BenchmarkError:
            continue
    if not kept:
        return {}
    bench_rows, scores = [b for _, b in kept], [scores[i] for i, _ in kept]
    report = evaluate_benchmark(bench_rows, {"model": lambda pairs: scores})
    got = report["scorers"]["model"]
    return {d: got["per_dataset"][d]["balanced_accuracy"] for d in report["datasets"]} | {
        "overall": got["overall"]["balanced_accuracy"]}


def main(argv: list[str]) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--model", help="a model dir `entailgen train` wrote (pair or dae)")
    args.add_argument("--rows", nargs="+", metavar="FILE", help="SummaC-layout benchmark files (default: samples/)")
    args.add_argument("--n-rows", type=int, default=96, help="rows drawn from --rows (seeded)")
    args.add_argument("--seed", type=int, default=0)
    args.add_argument("--repeats", type=int, default=2, help="turns per path; each path keeps its best")
    args.add_argument("--paths", default="base,fp32,int8,onnx-fp32,onnx-int8", help="scoring paths, in turn order")
    args.add_argument("--train", metavar="DATASET", help="also time one epoch of train on this dataset")
    args.add_argument("--train-examples", type=int, default=600, help="rows drawn for the training epoch")
    args.add_argument("--device", default="cpu", help="cpu or cuda (cuda: base and fp32; int8, onnx-* cpu only)")
    args.add_argument("--base-tree", help="a folder holding 95d1abf's package as entailgen/ (default: git archive)")
    args.add_argument("--work", default=str(ROOT / "out" / "speed"), help="where the base tree is extracted")
    args.add_argument("--json", metavar="FILE", help="also write every figure here")
    args.add_argument("--worker", help=argparse.SUPPRESS)
    args.add_argument("--path", help=argparse.SUPPRESS)
    args.add_argument("--rows-file", help=argparse.SUPPRESS)
    args.add_argument("--result", help=argparse.SUPPRESS)
    opts = args.parse_args(argv)
    if opts.worker:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        worker = {"score": score_worker, "train": train_worker, "ceiling": ceiling_worker}[opts.worker]
        Path(opts.result).write_text(json.dumps(worker(opts)))
        return 0
    if not opts.model and not opts.train:
        args.error("give --model (scoring) and/or --train DATASET (training)")
    opts.model, opts.train = (os.path.abspath(p) if p else p for p in (opts.model, opts.train))  # children: other cwd
    paths = [p for p in opts.paths.split(",") if opts.device == "cpu" or p in ("base", "fp32")]  # the rest: cpu only
    work = Path(opts.work).resolve()  # children run elsewhere
    tree = base_tree(opts.base_tree, work)
    rows = benchmark_rows(opts.rows, opts.n_rows, opts.seed) if opts.rows else sample_rows()
    work.mkdir(parents=True, exist_ok=True)
    rows_file = work / "rows.json"
    rows_file.write_text(json.dumps([(r["document"], r["claim"]) for r in rows]))
    print(host.describe(f"nproc {os.cpu_count()}", f"device {opts.device}", f"base {BASE_COMMIT}"), flush=True)
    figures: dict = {"rows": len(rows), "device": opts.device, "score": {}, "train": {}}
    if opts.model:
        figures["score"] = in_turns("score", paths, "rows_per_s", opts, str(rows_file), tree)
        base = figures["score"][paths[0]]
        ceiling = child("ceiling", "ceiling", opts, str(rows_file), tree) if opts.device == "cpu" else None
        print(f"\nscoring {len(rows)} rows ({opts.model}), best of {opts.repeats} turns each:")
        for path, got in figures["score"].items():
            delta = max(abs(a - b) for a, b in zip(got["scores"], base["scores"]))
            line = (f"  {path:9s} {got['rows_per_s']:7.3f} rows/s  x{got['rows_per_s'] / base['rows_per_s']:.2f}  "
                    f"max |score - {paths[0]}| {delta:.4f}  loads {[round(a[0], 2) for a, _ in got['loads']]}")
            if ceiling:
                rate = ceiling["flops"] / got["seconds"] / 1e9
                line += f"  {rate:.1f} GFLOP/s"
            if "label" in rows[0]:
                got["balanced_accuracy"] = balanced_accuracies(rows, got["scores"])
                line += f"  balanced accuracy {got['balanced_accuracy']}"
            print(line)
        if ceiling:
            figures["ceiling"] = ceiling
            fp32, int8 = ceiling["model_rate"]["fp32"] / 1e9, ceiling["model_rate"]["int8"] / 1e9
            print(f"  ceiling: {ceiling['cells']} cells, {ceiling['tokens']} tokens, {ceiling['flops'] / 1e9:.0f} "
                  f"GFLOP of forward passes; matmul at the encoder's shapes {fp32:.1f} GFLOP/s fp32, {int8:.1f} "
                  f"GOP/s int8 -> at most {fp32 * 1e9 / ceiling['flops'] * len(rows):.2f} rows/s fp32, "
                  f"{int8 * 1e9 / ceiling['flops'] * len(rows):.2f} int8 (matmuls alone, no parse)")
            for path, got in figures["score"].items():
                rate = ceiling["model_rate"]["int8" if path.endswith("int8") else "fp32"]
                print(f"  {path}: {ceiling['flops'] / got['seconds'] / rate:.0%} of its matmul rate")
    if opts.train:
        figures["train"] = in_turns("train", ["base", "new"], "examples_per_s", opts, str(rows_file), tree)
        base = figures["train"]["base"]
        print(f"\ntraining one epoch on {opts.train} ({opts.train_examples} rows drawn), best of {opts.repeats}:")
        for path, got in figures["train"].items():
            print(f"  {path:5s} {got['examples_per_s']:7.2f} examples/s  x{got['examples_per_s'] / base['examples_per_s']:.2f}"
                  f"  dev accuracy {got['dev_accuracy']}  loads {[round(a[0], 2) for a, _ in got['loads']]}")
    print(f"  load average at the end {os.getloadavg()}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
