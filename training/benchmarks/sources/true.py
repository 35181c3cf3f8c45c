"""TRUE's dialogue sets that can be fetched, Q2 (Honovich et al. 2021) and BEGIN (Dziri et al. 2022), in TRUE's CSV
layout (grounding, generated_text, label 1 = consistent, then the converter's own columns), which `evaluate
--benchmark true DIR/q2.csv DIR/begin_dev.csv ...` reads (a file's set is told by its name).

Q2: orhonovich/q-squared's `third_party/data/`: `cross_annotation.csv` (544 Wizard-of-Wikipedia turns, two systems'
responses each and a human label per response: TRUE's 1,088 rows) and four per-system files of 150 responses,
`<system>_consistent.csv` / `<system>_inconsistent.csv`, whose names say their responses' label. Which way the cross
annotation's label columns point no header says, so it is read off the per-system files: every response of theirs
found in the cross annotation (same knowledge and response, whitespace aside) must carry one value when its file says
consistent and another when it says inconsistent; files that match none, or values that do not split that way, are
refused in one line (on the repository's files: all 600 found, 0 = consistent, 1 = inconsistent: 628 + 460 rows).

BEGIN: google/BEGIN-dataset's TSV files (model_name, data_source, knowledge, message, response, begin_label), its dev
files into begin_dev.csv and its test files into begin_test.csv. That release (2022) is later than the one TRUE and
With a Little Push measured, so its figures are not theirs. As in TRUE, a fully attributable response is consistent
(1); any other label (not fully attributable, generic) inconsistent (0); a label in neither list is refused.
"""
from __future__ import annotations

import os
import re
from collections import Counter

from entailgen.training.benchmarks.fetch import Benchmark, Converted, FetchError, RemoteFile, csv_text, table_rows

Q2_DATA = "orhonovich/q-squared", "dd048c628a3d44180226515b2fc10e8deb031039"
Q2_CROSS = RemoteFile(*Q2_DATA, "third_party/data/cross_annotation.csv",
                      "b9c92dcf44b93fc8c19fa4a289c6a2780d703b090cf1d341175728778c330446")
Q2_PINS = {"dodeca_consistent": "f3960661a527f8d481d8bd324bb4b4ed84797eb90e3f91d8d2c0038e5861c4a8",
           "dodeca_inconsistent": "e8c97dcf7db823f69455042b1e27342f0d6db308ced1d491ad11bb5fc4d980c3",
           "memnet_consistent": "2e9b32dbc35d9708eade57205b4a39f0ed3ded3015229e45c1937239b41e1bc2",
           "memnet_inconsistent": "6d80a4a2d513799a580accf463ad89b2968ade3e0b35dc55b1d174511a5a0277"}
Q2_SYSTEMS = tuple(RemoteFile(*Q2_DATA, f"third_party/data/{name}.csv", sha256) for name, sha256 in Q2_PINS.items())
BEGIN_DATA = "google/BEGIN-dataset", "78e2215a158744b14d080e90c8135a2039f52eb8"
BEGIN_PINS = {  # the two test files of 4 MiB and more could not be read to pin: recorded, not checked
    "cmu-dog/begin_dev_cmu.tsv": "9482294df23cf08a976773ca73203b84f7178534ecab1a206eaade365e97071c",
    "topicalchat/begin_dev_tc.tsv": "d799a8cb3635de41b7f284dcfc872544ddeadcbae0c2ffd684270cce671f7711",
    "wow/begin_dev_wow.tsv": "2ebfc95a1ff267e12dcce3250da4d158e1811c62e9e1a0d56f110efc9ace0178",
    "wow/begin_test_wow.tsv": "d5c106a42042c3abd481563f1157e07c95c107dbcdf67f23564d874e8a4d6e7e"}
BEGIN_FOLDERS = (("cmu-dog", "cmu"), ("topicalchat", "tc"), ("wow", "wow"))
BEGIN_FILES = {cut: tuple(RemoteFile(*BEGIN_DATA, path, BEGIN_PINS.get(path))
                          for path in (f"{folder}/begin_{cut}_{short}.tsv" for folder, short in BEGIN_FOLDERS))
               for cut in ("dev", "test")}

CROSS_KNOWLEDGE = "knowledge"  # cross_annotation.csv: the turn's grounding
CROSS_RESPONSE = "{system}_response"  # each system's response and its label, the system named as in its files
CROSS_LABEL = "{system}_label"
SYSTEM_COLUMNS = ("knowledge", "response")  # <system>_consistent.csv / <system>_inconsistent.csv
SIDES = {"consistent": 1, "inconsistent": 0}  # a per-system file's name ends in one of these
FILE_NAME = re.compile(r"(?P<system>.+?)_(?P<side>inconsistent|consistent)\.csv$", re.IGNORECASE)
TRUE_COLUMNS = ("grounding", "generated_text", "label")

BEGIN_COLUMNS = ("knowledge", "response", "begin_label")  # grounding, response, its label
CONSISTENT = frozenset({"fully attributable", "attributable"})
INCONSISTENT = frozenset({"not fully attributable", "not attributable", "unattributable", "generic"})


def same_text(text: str) -> str:
    """Text compared whitespace aside."""
    return " ".join(text.split())


def system_file(path: str) -> tuple[str, int]:
    """(system, label) that a per-system file's name says: dodeca_inconsistent.csv -> ('dodeca', 0)."""
    m = FILE_NAME.search(os.path.basename(path))
    if not m:
        raise FetchError(f"{path}: a per-system file is named <system>_consistent.csv or <system>_inconsistent.csv "
                         "(its name says its responses' label)")
    return m["system"], SIDES[m["side"].lower()]


def label_values(cross: list[dict], systems: dict[str, list[tuple[int, list[dict]]]],
                 where: str) -> tuple[dict[str, int], int]:
    """(which cross-annotation label value means consistent (1) and which inconsistent (0), read off the per-system
    files' responses; how many of those were found); FetchError when they match none or do not split one value a
    side."""
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
        raise FetchError(f"{where}: the label column does not point one way: the consistent files' responses carry "
                         f"{said[1]}, the inconsistent files' {said[0]} (want one value each, different)")
    return {next(iter(seen[1])): 1, next(iter(seen[0])): 0}, sum(seen[1].values()) + sum(seen[0].values())


def q2_rows(cross_path: str, system_paths: list[str]) -> tuple[list[dict], dict[str, int], str]:
    """(TRUE rows, the label values' meaning, how many per-system responses told it): each cross-annotation turn's
    response per system, labelled by the values the per-system files point out."""
    systems: dict[str, list[tuple[int, list[dict]]]] = {}
    for path in system_paths:
        system, label = system_file(path)
        systems.setdefault(system, []).append((label, table_rows(path, SYSTEM_COLUMNS)))
    if not systems:
        raise FetchError("give the per-system files (<system>_consistent.csv, <system>_inconsistent.csv)")
    columns = [CROSS_KNOWLEDGE] + [c.format(system=s) for s in systems for c in (CROSS_RESPONSE, CROSS_LABEL)]
    cross = table_rows(cross_path, columns)
    values, matched = label_values(cross, systems, cross_path)
    rows = []
    for row in cross:
        for system in systems:
            value = row[CROSS_LABEL.format(system=system)].strip()
            if value not in values:
                raise FetchError(f"{cross_path} line {row['_line']}: {CROSS_LABEL.format(system=system)} is "
                                 f"{value!r}, neither of the values the per-system files point out "
                                 f"({', '.join(values)})")
            rows.append({"grounding": row[CROSS_KNOWLEDGE], "generated_text": row[CROSS_RESPONSE.format(system=system)],
                         "label": values[value], "system": system, "turn": row["_line"] - 1})
    given = sum(len(file_rows) for files in systems.values() for _, file_rows in files)
    return rows, values, f"{matched} of the per-system files' {given} responses found"


def begin_label(value: str, where: str) -> int:
    """1 for a fully attributable response, 0 for the others; FetchError for a value in neither list."""
    said = " ".join(value.replace("_", " ").replace("-", " ").lower().split())
    if said in CONSISTENT or said in INCONSISTENT:
        return int(said in CONSISTENT)
    raise FetchError(f"{where}: label {value!r} is neither consistent ({', '.join(sorted(CONSISTENT))}) nor "
                     f"inconsistent ({', '.join(sorted(INCONSISTENT))})")


def begin_rows(files: dict[str, str]) -> list[dict]:
    """Every line of the TSV files (name -> local copy) as a TRUE row, the file and line kept beside."""
    return [{"grounding": row[BEGIN_COLUMNS[0]], "generated_text": row[BEGIN_COLUMNS[1]], "file": name,
             "line": row["_line"], "label": begin_label(row[BEGIN_COLUMNS[2]] or "", f"{path} line {row['_line']}")}
            for name, path in files.items() for row in table_rows(path, BEGIN_COLUMNS, delimiter="\t")]


def convert(local: dict[str, str]) -> Converted:
    """q2.csv, begin_dev.csv and begin_test.csv from the sources' local copies (keyed by repository path)."""
    q2, values, told = q2_rows(local[Q2_CROSS.path], [local[f.path] for f in Q2_SYSTEMS])
    sets = {"q2.csv": q2, **{f"begin_{cut}.csv": begin_rows({f.path: local[f.path] for f in files})
                             for cut, files in BEGIN_FILES.items()}}
    meaning = ", ".join(f"{v!r} = {'consistent' if label else 'inconsistent'}" for v, label in values.items())
    return Converted(files={name: csv_text(rows, TRUE_COLUMNS) for name, rows in sets.items()},
                     rows={name: len(rows) for name, rows in sets.items()},
                     notes=(f"q2's labels {meaning}, told by {told}",))


BENCHMARK = Benchmark("true", "TRUE's Q2 and BEGIN (evaluate --benchmark true)",
                      (Q2_CROSS, *Q2_SYSTEMS, *BEGIN_FILES["dev"], *BEGIN_FILES["test"]), convert)
