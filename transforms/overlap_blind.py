"""Overlap-blind sampling: within each rule and overlap bin keep as many entailed units as not-entailed ones, so
neither word overlap nor negation nor disfluency (binned too) separates the labels a detector learns.

Bins (transforms.separability's units and cues): a unit's bin is (rule, overlap bin, negated, unseen bigrams), the
overlap bin being an arc's count of head and child found in the premise (0, 1, 2) or a pair's overlap share in deciles
(0.0-0.1 is 0, ..., 0.9-1.0 is 9), negated whether its hypothesis has a negation word (FactCC's negation makes a "not"
alone predict not-entailed), unseen bigrams how many of the hypothesis's word bigrams the premises of the rows
balanced lack, 0, 1, 2 or 3 and more (sampled sentences are the document's own, while a swap or splice writes one or
two bigrams no writer does at each seam; a count and not the disfluency share, which a long sentence dilutes, and few
bins, so that a bin still holds both labels). A rule that makes one label only (FactCC's sentence sampling, its
swaps; DAE's gold h*) has no bin to balance within, so the rules of one label are pooled into one group
(ONE_LABEL_RULES) and balanced against each other there: FactCC's CORRECT claims against its INCORRECT ones of the
same overlap.
Within a bin the larger class keeps as many units as the smaller has, those whose sha256 of (seed, row id, arc index)
is lowest: the same choice in any runner. An arc left out becomes unlabelled (None; the trainer skips it) and its row
stays; a pair row left out is a Skipped row, so every unit is still output, skipped or dead. Each arc or row left
out is counted under its reason, "rule:overlapB[+negation]:unseenU:surplus label" (U: 0, 1, 2, 3+).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Collection, Iterable, Optional

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.pvalue import AsList

from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import ArcExample, Skipped
from entailgen.transforms.separability import PremiseBigrams, SeenBigrams, Unit, units

STAGE = "overlap_blind"
ARCS_LEFT_OUT, ROWS_LEFT_OUT = "overlap_blind_arcs_left_out", "overlap_blind_rows_left_out"
SKIPPED, COUNTS = "skipped", "counts"
DECILES = 10
UNSEEN = 3  # the last unseen-bigram bin: 3 and more (few bins, or few would keep both labels)
ONE_LABEL_RULES = "one_label_rules"  # the group of the rules that make a single label
HELP = ("keep, within each rule and overlap bin (and negation, and count of bigrams the premises lack: 0, 1, 2, "
        "3+), as many entailed units as not-entailed ones, so overlap alone no longer separates the labels (arcs "
        "left out become unlabelled; pair rows left out are skipped, counted by reason)")


@dataclass(frozen=True)
class OverlapBlindConfig:
    """The run's seed, which picks the units kept within a bin."""

    seed: int = 0


def bin_of(unit: Unit, mixed: Optional[Collection[str]] = None) -> tuple[str, int, bool, int]:
    """(rule, overlap bin, negated, unseen bigrams up to UNSEEN) of a unit: arcs by head / child count, pairs by
    overlap decile; a rule not among mixed (the rules making both labels; None: every rule) is ONE_LABEL_RULES."""
    overlap, no_negation = unit.cues[0], unit.cues[1]
    overlap_bin = overlap if unit.arc is not None else min(int(overlap * DECILES), DECILES - 1)
    rule = unit.rule if mixed is None or unit.rule in mixed else ONE_LABEL_RULES
    return rule, int(overlap_bin), not no_negation, min(unit.unseen, UNSEEN)


def reason(key: tuple[str, int, bool, int], entailed: bool) -> str:
    """Why a unit was left out: its bin and the label it had too many of."""
    rule, overlap_bin, negated, unseen = key
    return (f"{rule}:overlap{overlap_bin}{'+negation' if negated else ''}:"
            f"unseen{unseen}{'+' if unseen == UNSEEN else ''}:{'entailed' if entailed else 'not_entailed'}")


def choose(key: tuple[str, int, bool, int], members: Iterable[tuple], seed: int) -> list[tuple[str, tuple]]:
    """One bin's (row id, arc index, entailed) members -> (row id, (arc index, kept, reason)) for each: the larger
    class keeps as many as the smaller, lowest seeded hash first."""
    by_class: dict[bool, list] = {True: [], False: []}
    for row_id, arc, entailed in members:
        by_class[entailed].append((unit_hash(seed, row_id, arc), row_id, -1 if arc is None else arc))
    keep = min(len(by_class[True]), len(by_class[False]))
    out = []
    for entailed, ranked in by_class.items():
        for rank, (_, row_id, arc) in enumerate(sorted(ranked)):
            out.append((row_id, (None if arc < 0 else arc, rank < keep, reason(key, entailed))))
    return out


def keyed_units(row, mixed: Optional[Collection[str]] = None,
                seen: frozenset | set = frozenset()) -> list[tuple[tuple, tuple]]:
    """(bin, (row id, arc index, entailed)) for each labelled unit of a row; seen: the premises' bigrams."""
    return [(bin_of(u, mixed), (u.id, u.arc, u.entailed)) for u in units(row, seen)]


def rule_labels(row) -> set[tuple[str, bool]]:
    """The (rule, entailed) pairs a row's units hold: which rules make both labels."""
    return {(u.rule, u.entailed) for u in units(row)}


def apply_choices(rows: list, choices: Iterable[tuple]) -> tuple[list, list[tuple[str, str]]]:
    """Rows sharing an id and their units' choices -> (rows kept, arcs left out unlabelled; (counter, reason) per arc
    or row left out). Rows of one id are equal, so the i-th of them takes the i-th choice of each unit."""
    by_arc: dict = defaultdict(list)
    for arc, kept, why in choices:
        by_arc[arc].append((not kept, why))
    for decisions in by_arc.values():
        decisions.sort()  # kept first
    out, left_out = [], []
    for i, row in enumerate(rows):
        def dropped(arc):
            decisions = by_arc.get(arc, [])
            return decisions[i] if i < len(decisions) and decisions[i][0] else None

        if isinstance(row, ArcExample) and row.label is None:
            arcs = []
            for j, a in enumerate(row.arcs):
                d = dropped(j)
                arcs.append(a if d is None else dataclasses.replace(a, entailed=None))
                if d is not None:
                    left_out.append((ARCS_LEFT_OUT, d[1]))
            out.append(dataclasses.replace(row, arcs=arcs))
        elif (d := dropped(None)) is not None:
            left_out.append((ROWS_LEFT_OUT, d[1]))
            out.append(Skipped(row.source, row.source_id, STAGE, d[1]))
        else:
            out.append(row)
    return out, left_out


class _KeyedUnits(beam.DoFn):
    """One row's units keyed by bin, the rules of both labels and the premises' bigrams side inputs."""

    def __init__(self):
        self.seen = SeenBigrams()

    def process(self, row, mixed, seen_list):
        yield from keyed_units(row, frozenset(mixed), self.seen(seen_list))


class _Apply(beam.DoFn):
    """One id's rows with their units' choices -> rows (arcs left out unlabelled), Skipped rows, (counter, reason)."""

    def __init__(self):
        self.arcs = beam.metrics.Metrics.counter("entailgen", ARCS_LEFT_OUT)
        self.rows = beam.metrics.Metrics.counter("entailgen", ROWS_LEFT_OUT)

    def process(self, keyed):
        _, group = keyed
        rows, left_out = apply_choices(list(group["row"]), group["choice"])
        for row in rows:
            yield pvalue.TaggedOutput(SKIPPED, row) if isinstance(row, Skipped) else row
        for counter, why in left_out:
            (self.arcs if counter == ARCS_LEFT_OUT else self.rows).inc()
            yield pvalue.TaggedOutput(COUNTS, ((counter, why), 1))


class OverlapBlind(beam.PTransform):
    """Labelled rows -> 'rows' balanced within each (rule, overlap bin, negated, unseen bigrams), 'skipped' pair rows
    left out and 'counts' ((counter, reason), n) of every arc or row left out, for the manifest. The bins need a
    global view: the units are grouped by bin (the premises' bigrams gathered first), and the choices joined back to
    their rows by id."""

    def __init__(self, config: OverlapBlindConfig = OverlapBlindConfig()):
        super().__init__()
        self.config = config

    def expand(self, rows):
        seed = self.config.seed
        if isinstance(rows, tuple):  # a family's branches: the bins span them all
            rows = rows | "Rows" >> beam.Flatten()
        mixed = (rows | "RuleLabels" >> beam.FlatMap(rule_labels) | "DistinctRuleLabels" >> beam.Distinct()
                 | "ByRule" >> beam.combiners.Count.PerKey()  # (rule, 2): both labels
                 | "Mixed" >> beam.FlatMap(lambda kv: [kv[0]] if kv[1] == 2 else []))
        seen = rows | "Corpus" >> PremiseBigrams()
        choices = (rows | "Units" >> beam.ParDo(_KeyedUnits(), AsList(mixed), AsList(seen))
                   | "ByBin" >> beam.GroupByKey()
                   | "Choose" >> beam.FlatMapTuple(lambda key, members: choose(key, members, seed)))
        applied = ({"row": rows | "ById" >> beam.WithKeys(lambda r: r.id), "choice": choices}
                   | "Join" >> beam.CoGroupByKey()
                   | "Apply" >> beam.ParDo(_Apply()).with_outputs(SKIPPED, COUNTS, main="rows"))
        return {"rows": applied.rows, SKIPPED: applied[SKIPPED],
                COUNTS: applied[COUNTS] | "SumCounts" >> beam.CombinePerKey(sum)}
