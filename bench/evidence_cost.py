"""What whole-document evidence costs: the same rows scored under each `--evidence` mode against `block` (today's),
CPU seconds per document and peak memory (target: at most 2x the time, 1.5x the memory).

Each mode runs in a fresh process (its peak resident memory its own: the model, the parse and every cell), in
alternating turns so a busy machine slows every mode alike; the figure is the median turn's ratio to `block`'s.
Prints the ratios, the absolute seconds and MiB, and the machine.

Rows: JSON Lines of {"document", "summary"} (e.g. XSumFaith's rows, never committed); the model: a DAE model dir.
Usage: python bench/evidence_cost.py MODEL_DIR ROWS.jsonl [--rows 100] [--turns 3] [--max-length 512]
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import host  # bench/host.py, beside this script

MODES = ("block", "arcs", "packed", "chunks")


def measure(model: str, rows_path: str, n: int, evidence: str, max_length: int) -> dict:
    """One fresh process scoring the rows under one mode: its seconds (model loaded, rows scored) and peak MiB."""
    done = subprocess.run([sys.executable, __file__, model, rows_path, "--rows", str(n), "--one", evidence,
                           "--max-length", str(max_length)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"evidence_cost bench: {evidence} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def score_here(model: str, rows_path: str, n: int, evidence: str, max_length: int) -> dict:
    """The rows scored under one mode by a scorer loaded here: seconds and this process's peak MiB."""
    from entailgen.training.scoring.document_scorer import DocumentScorer

    rows = host.read_rows(rows_path, n)
    start = time.perf_counter()
    scorer = DocumentScorer(model, evidence=evidence, max_length=None if evidence == "block" else max_length,
                            precision="fp32")
    scorer.scored(rows)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "cut": scorer.pair_scores.scorer.cut if hasattr(scorer.pair_scores, "scorer") else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("rows")
    parser.add_argument("--rows", dest="n", type=int, default=100)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--one", choices=MODES, help=argparse.SUPPRESS)  # a child process: one mode, one turn
    args = parser.parse_args()
    if args.one:
        print(json.dumps(score_here(args.model, args.rows, args.n, args.one, args.max_length)))
        return
    print(host.describe(f"{args.n} rows, {args.turns} turns, --max-length {args.max_length} for the new modes"))
    figures: dict[str, list[dict]] = {m: [] for m in MODES}
    for turn in range(args.turns):
        for mode in MODES:
            figures[mode].append(measure(args.model, args.rows, args.n, mode, args.max_length))
            host.log("evidence_cost", f"turn {turn + 1} {mode}: {figures[mode][-1]}")
    base_s = statistics.median(f["seconds"] for f in figures["block"])
    base_m = statistics.median(f["peak_mib"] for f in figures["block"])
    for mode in MODES:
        s = statistics.median(f["seconds"] for f in figures[mode])
        m = statistics.median(f["peak_mib"] for f in figures[mode])
        print(f"{mode:7s} {s / base_s:.2f}x time ({s / args.n * 1000:.0f} ms/document), {m / base_m:.2f}x peak "
              f"memory ({m:.0f} MiB); premises cut: {figures[mode][-1]['cut']}")


if __name__ == "__main__":
    main()
