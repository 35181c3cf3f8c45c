"""Q2 at three training seeds (rule: bench/preregistered/q2-seeds.md): q2_table2's base and dialogue models trained
again at seeds 1 and 2, nothing else changed, each seed's ROC AUC and paired gaps (dialogue over base, e-c over e).
A paired interval holds a model fixed; this is the spread a training seed alone makes.

Usage: python bench/q2_seeds.py --table2-work DIR (q2_table2's --work: its datasets, seed-0 models and score cache)
       --work DIR --file q2.csv
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

import host  # bench/host.py, beside this script
from q2_table2 import ARMS, arm_scores

BENCH = "q2-seeds"
SEEDS = (1, 2)
DATASETS = {"base": ("originals", 4000), "dialogue": ("dialogue", 8000)}  # q2_table2's datasets and training rows


def seed_models(table2: Path, work: Path, seed: int) -> dict[str, Path]:
    """The base and dialogue models of one seed: q2_table2's own at seed 0, trained here (once) otherwise."""
    if seed == 0:
        return {name: table2 / "models" / name for name in DATASETS}
    made = {name: work / "models" / f"{name}-s{seed}" for name in DATASETS}
    for name, out in made.items():
        dataset, rows = DATASETS[name]
        if not (out / "train.json").is_file():
            host.entailgen(BENCH, "train", str(table2 / dataset), "--output", str(out), "--epochs", "1",
                           "--max-examples", str(rows), "--seed", str(seed), "--overwrite")
    return made


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--table2-work", type=Path, required=True, help="bench/q2_table2.py's --work")
    args.add_argument("--work", type=Path, required=True, help="where seeds 1 and 2's models and scores go")
    args.add_argument("--file", required=True, help="Q2 in TRUE's layout (bench/q2.py)")
    opts = args.parse_args()
    from entailgen.training.true import auc_gap, auc_interval, read_true

    rows = read_true(opts.file)
    labels = [r.label for r in rows]
    base_e, base_ec, dialogue_e = ARMS[0], ARMS[1], ARMS[3]
    report = {"machine": host.describe(), "rule": "bench/preregistered/q2-seeds.md", "seeds": {}}
    for seed in (0, *SEEDS):
        models = seed_models(opts.table2_work, opts.work, seed)
        cache = SimpleNamespace(work=opts.table2_work if seed == 0 else opts.work)
        e, ec, d = (arm_scores(cache, arm, models[arm[1]], opts.file, rows, BENCH)
                    for arm in (base_e, base_ec, dialogue_e))
        report["seeds"][seed] = {"base e": auc_interval(labels, e), "base e-c": auc_interval(labels, ec),
                                 "dialogue e": auc_interval(labels, d), "dialogue minus base": auc_gap(labels, d, e),
                                 "e-c minus e": auc_gap(labels, ec, e)}
    (opts.work / "q2_seeds.json").write_text(json.dumps(report, indent=1))
    print(report["machine"])
    print("| seed | " + " | ".join(report["seeds"][0]) + " |")
    for seed, cells in report["seeds"].items():
        print(f"| {seed} | " + " | ".join(f"{v[0]:.1f} [{v[1]:.1f}, {v[2]:.1f}]" for v in cells.values()) + " |")


if __name__ == "__main__":
    main()
