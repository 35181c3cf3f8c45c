"""XSumFaith's span annotations (Maynez et al. 2020): google-research-datasets/xsum_hallucination_annotations'
`hallucination_annotations_xsum_summaries.csv` as it came (bbcid, system, summary, hallucination_type,
hallucinated_span, its start and end, worker_id: one row per marked span), checked for its columns, and the articles
the spans are read against as JSON Lines {"bbcid", "document"} (xsum_articles.jsonl). The XSum articles are on the
Hugging Face hub only, so they come from the SummaC repository's XSumFaith file by bbcid (485 of the 500); an
article it lacks is counted, not invented.
"""
from __future__ import annotations

import json

from entailgen.training.benchmarks.fetch import Benchmark, Converted, table_rows
from entailgen.training.benchmarks.sources.summac import SUMMAC_XSUMFAITH, XSUMFAITH_CSV, articles_by_bbcid

SPAN_COLUMNS = ("bbcid", "system", "summary", "hallucination_type", "hallucinated_span", "hallucinated_span_start",
                "hallucinated_span_end", "worker_id")
ARTICLES = "xsum_articles.jsonl"


def convert(local: dict[str, str]) -> Converted:
    """The annotations as they came and the articles of their bbcids, in the annotations' order."""
    path = local[XSUMFAITH_CSV.path]
    rows = table_rows(path, SPAN_COLUMNS)
    articles = articles_by_bbcid(local[SUMMAC_XSUMFAITH.path])
    bbcids = list(dict.fromkeys(r["bbcid"] for r in rows))
    found = [b for b in bbcids if b in articles]
    with open(path, encoding="utf-8", newline="") as f:
        annotations = f.read()
    return Converted(
        files={XSUMFAITH_CSV.name: annotations,
               ARTICLES: "".join(json.dumps({"bbcid": b, "document": articles[b]}) + "\n" for b in found)},
        rows={XSUMFAITH_CSV.name: len(rows), ARTICLES: len(found)},
        notes=(f"{len(bbcids) - len(found)} of {len(bbcids)} articles not in SummaC's data/xsumfaith.json",)
        if len(found) < len(bbcids) else ())


BENCHMARK = Benchmark("spans", "XSumFaith's hallucinated-span annotations and their articles",
                      (XSUMFAITH_CSV, SUMMAC_XSUMFAITH), convert)
