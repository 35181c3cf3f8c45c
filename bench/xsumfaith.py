"""XSumFaith (Maynez et al. 2020) with SummaC's own val and test cuts, in the layout `entailgen evaluate --benchmark`
and bench/benchmark.py read (`<set>.json`: id -> {document, claim, label, cut, ...}).

The SummaC repository's data/xsumfaith.json holds 485 val rows, one per article; its benchmark download makes both cuts
from Google's annotations (github.com/google-research-datasets/xsum_hallucination_annotations,
hallucination_annotations_xsum_summaries.csv) and the XSum test articles, which are on the Hugging Face hub only. This
script makes the cuts by SummaC's loader's rules: one row per (bbcid, system) in the file's order, val and test in
turn; consistent when the annotators' most common hallucination type is NULL. The articles come from the SummaC val
file by bbcid, so a row whose article is not in it is left out (counted). Both cuts hold the same articles.

Data (never committed: news articles, other licences).
Usage: python bench/xsumfaith.py ANNOTATIONS.csv SUMMAC_XSUMFAITH.json OUT.json
"""
from __future__ import annotations

import collections
import csv
import json
import sys
from pathlib import Path

import host  # bench/host.py, beside this script


def xsumfaith_rows(annotations: Path, summac: Path) -> tuple[dict[str, dict], int]:
    """Every (bbcid, system) of the annotations whose article the SummaC file has, with its SummaC cut; and how many
    had no article."""
    with annotations.open(newline="", encoding="utf-8") as f:
        groups: dict[tuple[str, str], list[dict]] = {}
        for a in csv.DictReader(f):
            groups.setdefault((a["bbcid"], a["system"]), []).append(a)
    articles = {str(r["bbcid"]): r["document"] for r in json.loads(summac.read_text()).values()}
    rows, missing = {}, 0
    for i, ((bbcid, system), annotated) in enumerate(groups.items()):
        if bbcid not in articles:
            missing += 1
            continue
        types = [a["hallucination_type"] for a in annotated]
        rows[f"xsumfaith-{bbcid}-{system}"] = {
            "document": articles[bbcid], "claim": annotated[0]["summary"],
            "label": int(collections.Counter(types).most_common(1)[0][0] == "NULL"),
            "cut": "val" if i % 2 == 0 else "test", "dataset": "xsumfaith", "model_name": system, "bbcid": bbcid}
    return rows, missing


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.splitlines()[-1], file=sys.stderr)
        return 2
    rows, missing = xsumfaith_rows(Path(argv[0]), Path(argv[1]))
    host.write_benchmark_set("xsumfaith", rows, argv[2], f"; {missing} left out, their article not in {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
