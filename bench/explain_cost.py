"""What `score --explain` costs: the same rows scored by `score --documents` and by `score --documents --explain`,
side by side, in turns (target: at most 1.2x).

Two measures, each in alternating turns so a busy machine slows both alike: the scorer alone in one process
(DocumentScorer.scored against .explained, the model loaded once: the extra work itself) and the CLI as a user runs
it (each run a fresh process: Beam, the model load and the writing included). Prints the ratios (median turn),
the absolute seconds and the machine.

Rows: JSON Lines of {"document", "summary"} (e.g. XSumFaith's rows, never committed); the model: a DAE model dir or a
detector dir (a pair model's explanation is its sentence scores: nothing to measure).
Usage: python bench/explain_cost.py MODEL_DIR ROWS.jsonl [--rows 200] [--turns 3] [--device cpu]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import host  # bench/host.py, beside this script


def scorer_turns(model: str, rows: list[tuple[str, str]], turns: int, device: str) -> tuple[list[float], list[float]]:
    """(plain seconds, explained seconds) per turn: the rows scored, then explained, by one loaded scorer (each turn
    a fresh scorer, so no parse is remembered from the turn before)."""
    from entailgen.training.scoring.detector import Detector, is_detector
    from entailgen.training.scoring.document_scorer import DocumentScorer

    def fresh():
        return Detector(model, device=device) if is_detector(model) else DocumentScorer(model, device=device)

    fresh().scored(rows[:4])  # warm: torch's first pass, spaCy's load
    plain, explained = [], []
    for _ in range(turns):
        for times, run in ((plain, lambda s: s.scored(rows)), (explained, lambda s: s.explained(rows))):
            scorer = fresh()
            start = time.perf_counter()
            run(scorer)
            times.append(time.perf_counter() - start)
    return plain, explained


def cli_turns(model: str, rows: list[tuple[str, str]], turns: int, device: str) -> tuple[list[float], list[float]]:
    """(plain seconds, explained seconds) per turn of `entailgen score --documents [--explain]` in a fresh process."""
    with tempfile.TemporaryDirectory() as work:
        inputs = Path(work) / "rows.jsonl"
        inputs.write_text("".join(json.dumps({"id": str(i), "document": d, "summary": s}) + "\n"
                                  for i, (d, s) in enumerate(rows)))
        plain, explained = [], []
        for turn in range(turns):
            for times, extra in ((plain, []), (explained, ["--explain"])):
                out = Path(work) / f"out-{turn}-{len(extra)}"
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "entailgen.runners.cli", "score", model, "--input",
                                       str(inputs), "--output", str(out), "--documents", "--device", device, *extra],
                                      capture_output=True, text=True)
                times.append(time.perf_counter() - start)
                if done.returncode != 0:
                    raise SystemExit(f"explain_cost bench: score exited {done.returncode}: {done.stderr.strip()}")
    return plain, explained


def line(name: str, plain: list[float], explained: list[float], rows: int) -> str:
    p, e = statistics.median(plain), statistics.median(explained)
    return (f"{name}: --explain / plain = {e / p:.2f}x (median of {len(plain)} turns: {e:.2f} s against {p:.2f} s "
            f"for {rows} rows; turns plain {', '.join(f'{t:.2f}' for t in plain)}; explained "
            f"{', '.join(f'{t:.2f}' for t in explained)})")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("rows_file")
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--no-cli", action="store_true", help="the scorer alone (no CLI runs)")
    args = parser.parse_args(argv)
    rows = host.read_rows(args.rows_file, args.rows)
    print(host.describe(f"device {args.device}, model {args.model}"), flush=True)
    host.log("explain_cost", f"{len(rows)} rows, the scorer alone")
    print(line("scorer alone", *scorer_turns(args.model, rows, args.turns, args.device), len(rows)), flush=True)
    if not args.no_cli:
        host.log("explain_cost", "the CLI, each run a fresh process")
        print(line("entailgen score CLI", *cli_turns(args.model, rows, args.turns, args.device), len(rows)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
