"""Statistics the card and report show, counted in one streaming pass over the rows actually written."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from entailgen.schemas.records import ENTAILED, NOT_ENTAILED

UNLABELLED = "unlabelled"
# DAE arc labels (Goyal & Durrett 2020 §4): 1 entailed, 0 not entailed, null when the top-1 evidence is unclear.
ARC_LABELS = {1: ENTAILED, 0: NOT_ENTAILED, None: UNLABELLED}
LENGTH_FIELDS = {"ArcExample": ("premise", "hypothesis"), "RtePair": ("premise", "hypothesis"),
                 "ParsedSentence": ("text",), "ClaimExample": ("premise", "claim"), "ScoredParaphrase": ("text", "gold")}


def arc_label(entailed: Optional[int]) -> str:
    """The name of an arc's 1 / 0 / null label, shared with the RTE label names so one colour means one label."""
    return ARC_LABELS[entailed]


def words(text: str) -> int:
    """Length in whitespace-separated words: the same measure for premises, hypotheses and sentences."""
    return len(text.split())


def dead_reason(row: dict) -> str:
    """Why a record became a dead letter, as 'stage:ErrorType'."""
    return f"{row['stage']}:{row['error_type']}"


def _arc_example_labels(row: dict) -> Iterator[tuple[str, str, str]]:
    """(facet, group, label) per arc of a DAE hypothesis, plus the sentence-level label when it has one."""
    for arc in row["arcs"]:
        label = arc_label(arc["entailed"])
        yield "split", row["split"], label
        yield "kind", row["kind"], label
        yield "relation", arc["rel"], label
    if row.get("label") is not None:
        yield "sentence label by kind", row["kind"], arc_label(row["label"])


def _rte_pair_labels(row: dict) -> Iterator[tuple[str, str, str]]:
    """(facet, group, label) of a recast pair: one label, seen by split, kind, phenomenon and template (+ 3-way)."""
    for facet in ("split", "kind", "phenomenon", "template"):
        yield facet, row[facet], row["label"]
    if row.get("label3"):
        yield "3-way label by kind", row["kind"], row["label3"]


def _parsed_sentence_labels(row: dict) -> Iterator[tuple[str, str, str]]:
    """Parse arcs carry no entailment label: they are counted by relation as unlabelled."""
    for arc in row["arcs"]:
        yield "relation", arc["rel"], UNLABELLED


def _claim_example_labels(row: dict) -> Iterator[tuple[str, str, str]]:
    """(facet, group, label) of a claim: its CORRECT / INCORRECT label by split, transformation and row kind."""
    yield "split", row["split"], row["label"]
    yield "transformation", row["transformation"] + (" + noise" if row["noise"] else ""), row["label"]
    yield "pair", "document" if row["block_index"] is None else "block", row["label"]


def _scored_paraphrase_labels(row: dict) -> Iterator[tuple[str, str, str]]:
    """A paraphrase pair has no entailment label: it is counted by split and by similarity (tenths)."""
    yield "split", row["split"], "paraphrase"
    yield "similarity", f"{int(row['similarity'] * 10) / 10:.1f}", "paraphrase"


LABELS_OF = {"ArcExample": _arc_example_labels, "RtePair": _rte_pair_labels, "ParsedSentence": _parsed_sentence_labels,
             "ClaimExample": _claim_example_labels, "ScoredParaphrase": _scored_paraphrase_labels}


@dataclass
class DatasetStats:
    """Rows by split and source, label balance by facet (split, kind, phenomenon, relation), lengths, dead letters."""

    record_type: str
    rows: dict = field(default_factory=lambda: defaultdict(Counter))  # split -> source -> rows
    labels: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))  # facet -> group -> label
    lengths: dict = field(default_factory=lambda: defaultdict(Counter))  # text field -> words -> rows
    dead: Counter = field(default_factory=Counter)  # stage:ErrorType -> dead letters

    def add(self, row: dict) -> None:
        """Count one written row."""
        self.rows[str(row["split"])][row["source"]] += 1
        for facet, group, label in LABELS_OF[self.record_type](row):
            self.labels[facet][str(group)][label] += 1
        for name in LENGTH_FIELDS[self.record_type]:
            self.lengths[name][words(row[name])] += 1

    def add_dead(self, row: dict) -> None:
        """Count one dead letter by its reason."""
        self.dead[dead_reason(row)] += 1

    def as_dict(self) -> dict:
        """Plain, key-sorted dicts: what the card and report render, identical for identical datasets."""
        return {
            "record_type": self.record_type,
            "rows": {split: dict(sorted(c.items())) for split, c in sorted(self.rows.items())},
            "labels": {facet: {g: dict(sorted(c.items())) for g, c in sorted(groups.items())}
                       for facet, groups in sorted(self.labels.items())},
            "lengths": {name: dict(sorted(c.items())) for name, c in sorted(self.lengths.items())},
            "dead": dict(sorted(self.dead.items())),
        }


def dataset_stats(record_type: str, rows: Iterable[dict], dead: Iterable[dict] = ()) -> dict:
    """The statistics of a dataset's rows and dead letters (rows as read back from shards, or `to_row` of records)."""
    if record_type not in LABELS_OF:
        raise ValueError(f"no report statistics for record type {record_type!r}; known: {', '.join(LABELS_OF)}")
    stats = DatasetStats(record_type)
    for row in rows:
        stats.add(row)
    for row in dead:
        stats.add_dead(row)
    return stats.as_dict()


def label_totals(stats: dict, facet: str = "split") -> dict[str, int]:
    """Label counts summed over the groups of one facet (the dataset's overall label balance)."""
    totals: Counter = Counter()
    for counts in stats["labels"].get(facet, {}).values():
        totals.update(counts)
    return dict(sorted(totals.items()))
