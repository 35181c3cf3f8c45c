"""Polytope (Huang et al. 2020) with SummaC's own val and test cuts, in the layout `entailgen evaluate --benchmark`
and bench/benchmark.py read (`<set>.json`: id -> {document, claim, label, cut, ...}).

The SummaC repository's data/polytope.json holds the val cut only; its benchmark download makes both cuts from the
Polytope repository's annotated workbooks (github.com/hddbang/PolyTope, outputs_with_human_annotation/*.xlsm). This
script follows SummaC's loader: in each workbook's "Scores per segment" sheet the rows are val and test in turn; a
summary is consistent when the "Error Log" sheet gives it no error subtype. Both cuts hold some of the same articles.

Data (never committed: news articles). Needs openpyxl (pip install openpyxl), which entailgen does not.
Usage: python bench/polytope.py XLSM_DIR OUT.json
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

import host  # bench/host.py, beside this script


def polytope_rows(folder: Path) -> dict[str, dict]:
    """Every annotated summary of every workbook in the folder, with its SummaC cut."""
    import openpyxl

    rows = {}
    for path in sorted(folder.glob("*.xlsm")):
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        segments = book["Scores per segment"].iter_rows(values_only=True)
        head = next(segments)
        found, errors = {}, collections.defaultdict(list)
        for i, cells in enumerate(segments):
            segment = dict(zip(head, cells))
            if segment["ID"] is not None:
                found[segment["ID"]] = (segment["Source"], segment["Target"], "val" if i % 2 == 0 else "test")
        log = book["Error Log"].iter_rows(values_only=True)
        head = next(log)
        for cells in log:
            entry = dict(zip(head, cells))
            if entry["Subtypes"] is not None:
                errors[entry["ID"]].append(entry["Subtypes"])
        for segment_id, (document, claim, cut) in found.items():
            rows[f"polytope-{path.stem}-{segment_id}"] = {
                "document": document, "claim": claim, "label": int(not errors[segment_id]), "cut": cut,
                "dataset": "polytope", "model_name": path.stem.removeprefix("Human_Annotation_Summarization_"),
                "errors": errors[segment_id]}
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[-1], file=sys.stderr)
        return 2
    host.write_benchmark_set("polytope", polytope_rows(Path(argv[0])), argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
