"""Q2's dialogue responses (Honovich et al. 2021) in TRUE's CSV layout (grounding, generated_text, label 1 =
consistent), which `entailgen evaluate MODEL --benchmark true q2.csv` reads: TRUE's 1,088 rows.

Where the files come from: github.com/orhonovich/q-squared, `third_party/data/`:
- `cross_annotation.csv`: 544 Wizard-of-Wikipedia turns, each with two systems' responses and a human label per
  response (544 x 2 = the 1,088 rows TRUE evaluates);
- four per-system files of 150 responses each, `<system>_consistent.csv` and `<system>_inconsistent.csv`, whose
  names say the label of every response in them.
Which way the cross annotation's label columns point (1 = consistent, or 1 = hallucinated) no header says, so this
script reads it off the per-system files: every response of theirs found in the cross annotation (same knowledge and
response, whitespace aside) must carry one value when its file says consistent and another when it says
inconsistent; a file that matches none, or values that do not split that way, are refused in one line.

The column names (CROSS_KNOWLEDGE, CROSS_RESPONSE, CROSS_LABEL and SYSTEM_COLUMNS below) are the repository's,
checked against its files on 2026-11-26 (there, all 600 per-system responses are found in the cross annotation and
say 0 = consistent, 1 = inconsistent: 628 + 460 rows); a header without them is refused naming the header it has.

Usage: python bench/q2.py cross_annotation.csv PER_SYSTEM_FILE... --output q2.csv
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import sys
from collections import Counter

from entailgen.training.benchmarks.files import BenchmarkError
from entailgen.training.benchmarks.true import csv_rows

CROSS_KNOWLEDGE = "knowledge"  # cross_annotation.csv: the turn's grounding
CROSS_RESPONSE = "{system}_response"  # each system's response and its label, the system named as in its files
CROSS_LABEL = "{system}_label"
SYSTEM_COLUMNS = ("knowledge", "response")  # <system>_consistent.csv / <system>_inconsistent.csv
SIDES = {"consistent": 1, "inconsistent": 0}  # a per-system file's name ends in one of these
FILE_NAME = re.compile(r"(?P<system>.+?)_(?P<side>inconsistent|consistent)\.csv$", re.IGNORECASE)
OUTPUT_COLUMNS = ("grounding", "generated_text", "label", "system", "turn")


ConversionError = BenchmarkError  # input the converter cannot use: one line naming the file and what is wrong


def same_text(text: str) -> str:
    """Text compared whitespace aside."""
    return " ".join(text.split())


def read_csv(path: str, columns) -> list[dict]:
    """The rows of a CSV with the given columns; ConversionError naming the file and its header otherwise."""
    return csv_rows(path, columns, "file")


def system_file(path: str) -> tuple[str, int]:
    """(system, label) that a per-system file's name says: dodeca_inconsistent.csv -> ('dodeca', 0)."""
    m = FILE_NAME.search(os.path.basename(path))
    if not m:
        raise ConversionError(f"{path}: a per-system file is named <system>_consistent.csv or "
                              "<system>_inconsistent.csv (its name says its responses' label)")
    return m["system"], SIDES[m["side"].lower()]


def label_values(cross: list[dict], systems: dict[str, list[tuple[int, list[dict]]]],
                 where: str) -> tuple[dict[str, int], int]:
    """(which cross-annotation label value means consistent (1) and which inconsistent (0), read off the per-system
    files' responses (module docstring); how many of those were found); ConversionError when they match none or do
    not split one value a side."""
    index: dict[tuple, str] = {}
    for row in cross:
        for system in systems:
            key = (system, same_text(row[CROSS_KNOWLEDGE]), same_text(row[CROSS_RESPONSE.format(system=system)]))
            index[key] = row[CROSS_LABEL.format(system=system)].strip()
    seen = {1: Counter(), 0: Counter()}
    for system, files in systems.items():
        for label, rows in files:
            for r in rows:
                value = index.get((system, same_text(r[SYSTEM_COLUMNS[0]]), same_text(r[SYSTEM_COLUMNS[1]])))
                if value is not None:
                    seen[label][value] += 1
    said = {label: ", ".join(f"{v!r} {n}" for v, n in c.most_common()) or "none" for label, c in seen.items()}
    if len(seen[1]) != 1 or len(seen[0]) != 1 or set(seen[1]) == set(seen[0]):
        raise ConversionError(f"{where}: the label column does not point one way: the consistent files' responses "
                              f"carry {said[1]}, the inconsistent files' {said[0]} (want one value each, different)")
    return {next(iter(seen[1])): 1, next(iter(seen[0])): 0}, sum(seen[1].values()) + sum(seen[0].values())


def convert(cross_path: str, system_paths: list[str]) -> tuple[list[dict], dict[str, int], str]:
    """(TRUE rows, the label values' meaning, how many per-system responses told it): each cross-annotation turn's
    response per system, labelled by the values the per-system files point out."""
    systems: dict[str, list[tuple[int, list[dict]]]] = {}
    for path in system_paths:
        system, label = system_file(path)
        systems.setdefault(system, []).append((label, read_csv(path, SYSTEM_COLUMNS)))
    if not systems:
        raise ConversionError("give the per-system files (<system>_consistent.csv, <system>_inconsistent.csv)")
    columns = [CROSS_KNOWLEDGE] + [c.format(system=s) for s in systems for c in (CROSS_RESPONSE, CROSS_LABEL)]
    cross = read_csv(cross_path, columns)
    values, matched = label_values(cross, systems, cross_path)
    rows = []
    for n, row in enumerate(cross, 2):
        for system in systems:
            value = row[CROSS_LABEL.format(system=system)].strip()
            if value not in values:
                raise ConversionError(f"{cross_path} line {n}: {CROSS_LABEL.format(system=system)} is {value!r}, "
                                      f"neither of the values the per-system files point out ({', '.join(values)})")
            rows.append({"grounding": row[CROSS_KNOWLEDGE], "generated_text": row[CROSS_RESPONSE.format(system=system)],
                         "label": values[value], "system": system, "turn": n - 1})
    given = sum(len(file_rows) for files in systems.values() for _, file_rows in files)
    return rows, values, f"{matched} of the per-system files' {given} responses found"


def write_true(rows: list[dict], out: str) -> None:
    """Rows in TRUE's CSV layout (and the converter's own columns after)."""
    with open(out, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else OUTPUT_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cross", help="third_party/data/cross_annotation.csv")
    parser.add_argument("systems", nargs="+", help="<system>_consistent.csv and <system>_inconsistent.csv files")
    parser.add_argument("--output", required=True, help="TRUE-layout CSV to write")
    args = parser.parse_args(argv)
    try:
        rows, values, told = convert(args.cross, args.systems)
    except ConversionError as e:
        print(f"q2: error: {e}", file=sys.stderr)
        return 2
    write_true(rows, args.output)
    consistent = sum(r["label"] for r in rows)
    meaning = ", ".join(f"{v!r} = {'consistent' if label else 'inconsistent'}" for v, label in values.items())
    print(f"q2: {len(rows)} rows ({consistent} consistent, {len(rows) - consistent} inconsistent; {meaning}, "
          f"told by {told}) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
