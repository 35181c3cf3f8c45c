"""Summary reranking (Falke et al. 2019's CNN/DM triples, the DAE paper's Table 4): tagoyal/dae-factuality's
`resources/summary_pairs.json` (a JSON list of article_sent, correct_sent, incorrect_sent), checked and written as it
came, which `evaluate --benchmark rank19 DIR/summary_pairs.json` reads.
"""
from __future__ import annotations

from entailgen.training.benchmarks.fetch import Benchmark, Converted, FetchError, RemoteFile, read_json

PAIRS = RemoteFile("tagoyal/dae-factuality", "a7d8805d9a4aa854de6d168e80ebb175d5fd2130", "resources/summary_pairs.json",
                   "cd12359b5a6f1e3e9916a63aed911bacee74f501ce9f4a0331266a668ae4e310")
FIELDS = ("article_sent", "correct_sent", "incorrect_sent")  # a triple: the source sentence, a right and a wrong one


def checked_triples(path: str) -> list:
    """The file's triples; FetchError naming the first row without text in a field (evaluate would refuse it)."""
    rows = read_json(path)
    if not isinstance(rows, list) or not rows:
        raise FetchError(f"{path}: not a JSON list of triples ({', '.join(FIELDS)})")
    for n, row in enumerate(rows, 1):
        missing = [k for k in FIELDS if not isinstance(row, dict) or not isinstance(row.get(k), str)
                   or not row[k].strip()]
        if missing:
            raise FetchError(f"{path} row {n}: no text in {', '.join(missing)}")
    return rows


def convert(local: dict[str, str]) -> Converted:
    """summary_pairs.json as it came, once every triple is checked."""
    path = local[PAIRS.path]
    rows = checked_triples(path)
    with open(path, encoding="utf-8", newline="") as f:
        return Converted(files={PAIRS.name: f.read()}, rows={PAIRS.name: len(rows)})


BENCHMARK = Benchmark("rank19", "the DAE paper's summary reranking triples (evaluate --benchmark rank19)", (PAIRS,),
                      convert)
