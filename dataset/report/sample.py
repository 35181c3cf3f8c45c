"""A seeded sample of rows to show, a few per group, chosen so it never depends on the order rows are read in."""
from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Callable, Iterable

from entailgen.schemas.ids import seeded_rng

PURPOSE = "report-sample"


def example_group(record_type: str) -> Callable[[dict], str]:
    """What a sample is stratified by: DAE kind (gold, bottom, word_swap...), recast phenomenon + kind, parse source."""
    if record_type == "ArcExample":
        return lambda row: row["kind"]
    if record_type == "RtePair":
        return lambda row: f"{row['phenomenon']} / {row['kind']}"
    if record_type == "ClaimExample":
        return lambda row: row["transformation"] + (" + noise" if row["noise"] else "")
    return lambda row: row["source"]


def sample_priority(seed: int, row: dict) -> float:
    """The row's place in the sample order: a draw from the run seed mixed with the row id."""
    return seeded_rng(seed, row["id"], PURPOSE).random()


def sample_rows(rows: Iterable[dict], seed: int, per_group: int, group: Callable[[dict], str]) -> list[dict]:
    """Up to per_group rows per group, those of lowest seeded priority (streaming); sorted by group, then priority."""
    heaps: dict[str, list] = defaultdict(list)
    for position, row in enumerate(rows):
        item = (-sample_priority(seed, row), -position, row)  # max-heap: the worst kept row sits at heap[0]
        heap = heaps[group(row)]
        if len(heap) < per_group:
            heapq.heappush(heap, item)
        elif per_group and item[:2] > heap[0][:2]:
            heapq.heapreplace(heap, item)
    return [row for name in sorted(heaps) for _, _, row in sorted(heaps[name], key=lambda item: item[:2], reverse=True)]
