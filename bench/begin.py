"""BEGIN (Dziri et al. 2022) in TRUE's CSV layout (grounding, generated_text, label 1 = consistent), which
`entailgen evaluate MODEL --benchmark true begin.csv` reads.

Where the files come from: github.com/google/BEGIN-dataset, its TSV files (`cmu-dog/`, `topicalchat/`, `wow/`:
`begin_dev_*.tsv` and `begin_test_*.tsv`; columns model_name, data_source, knowledge, message, response, begin_label:
one knowledge snippet, the dialogue message, a system's response and the annotators' attribution label per line).
That release is later than the one TRUE and With a Little Push measured (their Table 1: BEGIN 79.3 - 82.6 ROC AUC),
so its figures are not theirs; on it, unigram overlap alone reaches 92.0 ROC AUC (docs/benchmarks/true.md; its
unattributable responses mostly say what the knowledge does not), a baseline to read any model's figure against. As in TRUE, a fully attributable response is consistent (1); any other label (not fully
attributable, generic, ...) inconsistent (0); a label in neither list is refused in one line.

The column names and labels (COLUMNS, CONSISTENT / INCONSISTENT below) are the release's, checked against its files
on 2026-11-26; a header without the columns is refused naming the header it has.

Usage: python bench/begin.py BEGIN_FILE.tsv... --output begin.csv
"""
from __future__ import annotations

import argparse
import sys

from entailgen.training.benchmarks.true import csv_rows
from q2 import ConversionError, write_true  # bench/q2.py, beside this script

COLUMNS = ("knowledge", "response", "begin_label")  # google/BEGIN-dataset TSVs: grounding, response, its label
CONSISTENT = frozenset({"fully attributable", "attributable"})
INCONSISTENT = frozenset({"not fully attributable", "not attributable", "unattributable", "generic"})


def label_of(value: str, where: str) -> int:
    """1 for a fully attributable response, 0 for the others; ConversionError for a value in neither list."""
    said = " ".join(value.replace("_", " ").replace("-", " ").lower().split())
    if said in CONSISTENT or said in INCONSISTENT:
        return int(said in CONSISTENT)
    raise ConversionError(f"{where}: label {value!r} is neither consistent ({', '.join(sorted(CONSISTENT))}) nor "
                          f"inconsistent ({', '.join(sorted(INCONSISTENT))})")


def convert(paths: list[str]) -> list[dict]:
    """Every line of the TSV files as a TRUE row, the file and line kept beside."""
    return [{"grounding": row[COLUMNS[0]], "generated_text": row[COLUMNS[1]], "file": path, "line": row["_line"],
             "label": label_of(row[COLUMNS[2]] or "", f"{path} line {row['_line']}")}
            for path in paths for row in csv_rows(path, COLUMNS, "file", delimiter="\t")]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="google/BEGIN-dataset TSV files")
    parser.add_argument("--output", required=True, help="TRUE-layout CSV to write")
    args = parser.parse_args(argv)
    try:
        rows = convert(args.files)
    except ConversionError as e:
        print(f"begin: error: {e}", file=sys.stderr)
        return 2
    write_true(rows, args.output)
    consistent = sum(r["label"] for r in rows)
    print(f"begin: {len(rows)} rows ({consistent} consistent, {len(rows) - consistent} inconsistent) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
