"""e-c against e, model by model, on TRUE's dialogue files (issue 40): each model's ROC AUC with its e score
(P(entailed)) and its e-c score ((1 + P(e) - P(c)) / 2), the gap e-c minus e on the same bootstrap draws, unigram
overlap on the same rows. The rule, written before the data was built: bench/trials/rules/q2-ec-round-trip.md.

Scores come from the scorers' API as `evaluate --benchmark true` scores (bench/trials/q2_table2.py's arm_scores, fp32, one
pass), kept per model, file and score in --work, so scoring the dev files first and Q2 later scores nothing twice.

Usage: python bench/trials/q2_ec.py --model NAME=MODEL_DIR... --documents DOCS.jsonl --work DIR (--dev CSV... | --files CSV...)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
import host  # noqa: E402 (bench/host.py)
from q2_table2 import arm_scores, check_held_out

BENCH = "q2-ec"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--model", action="append", required=True, metavar="NAME=MODEL_DIR",
                      help="a 3-way pair model (repeatable); NAME labels its rows")
    args.add_argument("--documents", type=Path, required=True,
                      help="the JSON lines the models' data was made from (checked against the files' groundings)")
    args.add_argument("--dev", nargs="+", default=[], metavar="CSV", help="TRUE-layout dev files (scored first)")
    args.add_argument("--files", nargs="+", default=[], metavar="CSV", help="TRUE-layout test files")
    args.add_argument("--work", type=Path, default=Path.home() / ".cache" / "entailgen" / BENCH)
    opts = args.parse_args()
    models = dict(m.split("=", 1) for m in opts.model)
    from entailgen.training.benchmarks.baselines import unigram_overlap_scores
    from entailgen.training.benchmarks.metrics import auc_gap, auc_interval
    from entailgen.training.benchmarks.true import read_true

    files = {name: read_true(name) for name in opts.dev + opts.files}
    check_held_out(opts.documents, files, BENCH)
    report = {"machine": host.describe(), "rule": "bench/trials/rules/q2-ec-round-trip.md", "files": {}}
    lines = ["| model | file | e: ROC AUC | e-c: ROC AUC | e-c minus e (paired) |", "|---|---|---|---|---|"]
    for name, rows in files.items():
        labels, file = [r.label for r in rows], Path(name).name
        overlap = auc_interval(labels, unigram_overlap_scores([(r.grounding, r.response) for r in rows]))
        report["files"][name] = {"unigram overlap": overlap}
        for model, folder in models.items():
            e, ec = (arm_scores(opts, (f"{model}, {score}", model, score, 0), Path(folder), name, rows, BENCH)
                     for score in ("e", "e-c"))
            got = {"e": auc_interval(labels, e), "e-c": auc_interval(labels, ec), "gap": auc_gap(labels, ec, e)}
            report["files"][name][model] = got
            cells = [f"{a:.1f} [{low:.1f}, {high:.1f}]" for a, low, high in (got["e"], got["e-c"])]
            lines.append(f"| {model} | {file} | {cells[0]} | {cells[1]} | "
                         f"{got['gap'][0]:+.1f} [{got['gap'][1]:+.1f}, {got['gap'][2]:+.1f}] |")
        lines.append(f"| unigram overlap | {file} | {overlap[0]:.1f} [{overlap[1]:.1f}, {overlap[2]:.1f}] | | |")
    opts.work.mkdir(parents=True, exist_ok=True)
    (opts.work / "q2_ec.json").write_text(json.dumps(report, indent=1))
    print(report["machine"])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
