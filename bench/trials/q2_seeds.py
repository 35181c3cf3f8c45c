"""Q2 at three training seeds (rule: bench/trials/rules/q2-seeds.md): q2_table2's base and dialogue models trained
again at seeds 1 and 2, nothing else changed, each seed's ROC AUC and paired gaps (dialogue over base, e-c over e).
A paired interval holds a model fixed; this is the spread a training seed alone makes.

Runs in q2_table2's --work (its datasets, models and score cache; the new seeds' models go to models/<name>-s<seed>).

Usage: python bench/trials/q2_seeds.py --claims CLAIMS_DATASET --work DIR --file q2.csv
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
import host  # noqa: E402 (bench/host.py)
from q2_table2 import ARMS, EPOCHS, EXAMPLES, arm_scores, datasets, models

BENCH = "q2-seeds"
SEEDS = (0, 1, 2)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--claims", type=Path, required=True, help="the claims dataset bench/trials/q2_table2.py was given")
    args.add_argument("--work", type=Path, required=True, help="bench/trials/q2_table2.py's --work")
    args.add_argument("--file", required=True, help="Q2 in TRUE's layout (entailgen benchmarks fetch true's q2.csv)")
    args.add_argument("--examples", type=int, default=EXAMPLES, help="as bench/trials/q2_table2.py's --examples")
    args.add_argument("--epochs", type=int, default=EPOCHS, help="as bench/trials/q2_table2.py's --epochs")
    opts = args.parse_args()
    from entailgen.training.benchmarks.metrics import auc_gap, auc_interval
    from entailgen.training.benchmarks.true import read_true

    rows = read_true(opts.file)
    labels = [r.label for r in rows]
    pairs = datasets(opts)
    base_e, base_ec, dialogue_e = ARMS[0], ARMS[1], ARMS[3]
    report = {"machine": host.describe(), "rule": "bench/trials/rules/q2-seeds.md", "seeds": {}}
    for seed in SEEDS:
        trained = models(opts, pairs, seed)
        e, ec, d = (arm_scores(opts, arm, trained[arm[1]], opts.file, rows, BENCH)
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
