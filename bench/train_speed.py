"""Training on Accelerate against the hand-written loop it replaced (issue 63), side by side in one run.

- speed: `train` with one process, the base's code and today's in turns (base, new, base, new, ...), each run a child
  process of its own; examples/s as train.json counts it (reading, featurising and steps; not loading, dev passes or
  checkpoints), the wall time of the whole train() call (loading, dev passes and the epoch-end checkpoint included),
  and the model's sha256 (the same weights, byte for byte, is the claim); medians over --repeats, the load average
  read before and after each run.
- processes: `entailgen train --processes 2` (DDP, gloo) against one process, per seed: 2 x --batch-size / 2 (the same
  32 examples a step: the recipe), and 2 x --batch-size (64 a step); dev accuracy and examples/s (on shared cores a
  ratio, not a promise of speed-up).

The base's code comes from `git archive BASE` (default: 3460243, the last commit of the hand-written loop) as
entailgen/ in a temporary folder, on PYTHONPATH ahead of today's package.

    python bench/train_speed.py --dataset out/sample [--repeats 5] [--epochs 2] [--seeds 0 1 2] [--sections speed]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import host  # bench/host.py, beside this script

BENCH = "train_speed"
ROOT = Path(__file__).resolve().parent.parent  # the entailgen package (the repository root)
HAND_WRITTEN_LOOP = "3460243"  # the last commit whose trainer is the hand-written loop Accelerate replaced


def worker(args) -> dict:
    """One `train` in this process (the base's or today's package, as PYTHONPATH says); its figures."""
    from entailgen.training.fitting.trainer import TrainOptions, train

    out = os.path.join(tempfile.mkdtemp(prefix="train-speed-"), "model")
    options = TrainOptions(epochs=args.epochs, seed=args.seed, progress=False, device="cpu",
                           max_examples=args.max_examples, batch_size=args.batch_size)
    load = [os.getloadavg()]
    start = time.perf_counter()
    summary = train(args.dataset, out, options)
    wall = time.perf_counter() - start
    load.append(os.getloadavg())
    return figures(summary, out, wall, load)


def figures(summary: dict, out: str, wall: float, load: list) -> dict:
    with open(os.path.join(out, "model.safetensors"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"examples_per_s": summary["examples_per_s"], "train_s": summary["train_s"], "wall_s": round(wall, 2),
            "dev_accuracy": summary["dev_accuracy"], "steps": summary["steps"], "sha256": digest, "load": load,
            "processes": summary.get("processes", 1)}


def base_tree(commit: str, work: Path) -> Path:
    """A folder holding the base's package as `entailgen/`."""
    tree = work / f"base-{commit[:12]}"
    (tree / "entailgen").mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tree / "entailgen")], input=archive.stdout, check=True)
    return tree


def env_for(path: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])}


def child(tree: Path, args, seed: int, batch_size: int) -> dict:
    """One `train` in a child process with `tree`'s package first on the path."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        command = [sys.executable, __file__, "--worker", "--dataset", args.dataset, "--epochs", str(args.epochs),
                   "--seed", str(seed), "--batch-size", str(batch_size), "--result", out.name,
                   *(["--max-examples", str(args.max_examples)] if args.max_examples else [])]
        done = subprocess.run(command, env=env_for(tree), cwd=tempfile.gettempdir(), capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"train_speed: a child failed:\n{done.stderr[-3000:]}")
        return json.loads(Path(out.name).read_text())


def launched(args, seed: int, processes: int, batch_size: int) -> dict:
    """`entailgen train --processes N` as a user runs it (today's package); its figures from train.json."""
    out = os.path.join(tempfile.mkdtemp(prefix="train-speed-"), "model")
    command = [sys.executable, "-m", "entailgen.runners.cli", "train", args.dataset, "--output", out, "--epochs",
               str(args.epochs), "--seed", str(seed), "--device", "cpu", "--batch-size", str(batch_size), "--quiet",
               "--processes", str(processes),
               *(["--max-examples", str(args.max_examples)] if args.max_examples else [])]
    load = [os.getloadavg()]
    start = time.perf_counter()
    done = subprocess.run(command, env=env_for(ROOT.parent), cwd=tempfile.gettempdir(), capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    load.append(os.getloadavg())
    if done.returncode != 0:
        raise SystemExit(f"train_speed: --processes {processes} failed:\n{done.stderr[-3000:]}")
    return figures(json.loads(Path(out, "train.json").read_text()), out, wall, load)


def speed(args, base: Path) -> dict:
    """The base and today's trainer in turns; each path's runs and medians, and the ratio of the medians."""
    runs: dict = {"base": [], "new": []}
    for turn in range(args.repeats):
        for path, tree in (("base", base), ("new", ROOT.parent)):
            got = child(tree, args, args.seeds[0], args.batch_size)
            runs[path].append(got)
            host.log(BENCH, f"speed turn {turn + 1} {path}: {got['examples_per_s']} examples/s, "
                            f"wall {got['wall_s']} s, load {got['load'][0][0]:.2f} -> {got['load'][1][0]:.2f}")
    medians = {p: {k: statistics.median(r[k] for r in runs[p]) for k in ("examples_per_s", "wall_s")} for p in runs}
    return {"runs": runs, "medians": medians,
            "ratio_examples_per_s": round(medians["new"]["examples_per_s"] / medians["base"]["examples_per_s"], 3),
            "ratio_wall": round(medians["new"]["wall_s"] / medians["base"]["wall_s"], 3),
            "same_weights": len({r["sha256"] for p in runs for r in runs[p]}) == 1}


def processes(args) -> dict:
    """Per seed: one process, 2 processes at half the batch each (the same examples a step) and at the whole batch."""
    out = {}
    for seed in args.seeds:
        row = {"one": launched(args, seed, 1, args.batch_size),
               "two_half_batch": launched(args, seed, 2, args.batch_size // 2),
               "two_whole_batch": launched(args, seed, 2, args.batch_size)}
        for name, got in row.items():
            host.log(BENCH, f"processes seed {seed} {name}: dev {got['dev_accuracy']}, {got['examples_per_s']} "
                            f"examples/s, wall {got['wall_s']} s")
        out[str(seed)] = row
    best = lambda name: [max(out[s][name]["dev_accuracy"]) for s in out]  # noqa: E731 (the kept epoch's)
    return {"seeds": out, "mean_kept_dev_accuracy": {n: round(statistics.mean(best(n)), 2)
                                                     for n in ("one", "two_half_batch", "two_whole_batch")}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True, help="a finished dae dataset (make sample's out/sample)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-examples", type=int)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--base", default=HAND_WRITTEN_LOOP,
                        help=f"the base commit (default: {HAND_WRITTEN_LOOP[:7]}, the last of the hand-written loop)")
    parser.add_argument("--sections", nargs="+", default=["speed", "processes"], choices=("speed", "processes"))
    parser.add_argument("--out", help="where the JSON goes (default: stdout only)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.dataset = os.path.abspath(args.dataset)
    if args.worker:
        Path(args.result).write_text(json.dumps(worker(args)))
        return 0
    commit = args.base
    report = {"machine": host.describe(), "base": commit,
              "dataset": args.dataset, "epochs": args.epochs, "batch_size": args.batch_size}
    with tempfile.TemporaryDirectory() as work:
        if "speed" in args.sections:
            report["speed"] = speed(args, base_tree(commit, Path(work)))
        if "processes" in args.sections:
            report["processes"] = processes(args)
    text = json.dumps(report, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
