"""Per-unit accounting: every input unit ends as exactly one of output, skipped or dead, so for each source
read = units with output + units skipped + units dead, however many rows, skips or dead letters one unit makes.

A unit with a dead letter counts as dead (even if some of its rows were written); a unit with rows and no dead letter
as output; a unit with only skips as skipped. Skips of a unit that is not skipped (a transformation that found
nothing to change while its others made claims) are counted apart, as transformation-level skips.
"""
from __future__ import annotations

from typing import Iterable, Iterator

import apache_beam as beam

from entailgen.schemas.records import DeadLetter, Skipped

WITH_OUTPUT = "units_with_output"  # by source
DEAD = "units_dead"  # by source
SKIPPED = "skipped_by_source"  # units with no output and no dead letter, by source
SKIPPED_REASONS = "skipped_by_reason"  # the skips of those units, by stage:reason
TRANSFORMATION_SKIPS = "skipped_transformations"  # skips of units that have output or are dead, by stage:reason


def unit_trace(element) -> tuple[tuple[str, str], tuple[bool, bool, tuple[str, ...]]]:
    """(unit key, (dead?, output?, skip reasons)) of one record, dead letter or Skipped."""
    key = (element.source, element.source_id)
    if isinstance(element, DeadLetter):
        return key, (True, False, ())
    if isinstance(element, Skipped):
        return key, (False, False, (f"{element.stage}:{element.reason}",))
    return key, (False, True, ())


def merge_traces(traces: Iterable[tuple[bool, bool, tuple[str, ...]]]) -> tuple[bool, bool, tuple[str, ...]]:
    """One unit's traces merged (associative and commutative, so a runner may combine them in any order)."""
    dead, output, reasons = False, False, []
    for d, o, r in traces:
        dead, output = dead or d, output or o
        reasons.extend(r)
    return dead, output, tuple(sorted(reasons))


def unit_counts(key: tuple[str, str], trace: tuple[bool, bool, tuple[str, ...]]) -> Iterator[tuple[tuple[str, str], int]]:
    """((count name, key), 1) pairs for one unit: its outcome by source, and each of its skips by reason."""
    source, _ = key
    dead, output, reasons = trace
    outcome = DEAD if dead else WITH_OUTPUT if output else SKIPPED
    yield (outcome, source), 1
    for reason in reasons:
        yield (SKIPPED_REASONS if outcome == SKIPPED else TRANSFORMATION_SKIPS, reason), 1


class CountUnits(beam.PTransform):
    """Records, dead letters and skips (a tuple of PCollections of any mix) -> ((count name, key), n) for the
    manifest, for the units of the named input files (a bad line of an option file, such as dae's --candidates, is
    a dead letter of that file but no input unit). Each is traced where it is made: only the small traces are
    flattened, never the records."""

    def __init__(self, sources: Iterable[str]):
        super().__init__()
        self.sources = frozenset(sources)

    def expand(self, pcolls):
        sources = self.sources
        return ([pcoll | f"Trace {i}" >> beam.Map(unit_trace) for i, pcoll in enumerate(pcolls)]
                | "Traces" >> beam.Flatten()
                | "OfInputs" >> beam.Filter(lambda trace: trace[0][0] in sources)
                | "ByUnit" >> beam.CombinePerKey(merge_traces)
                | "Outcome" >> beam.FlatMapTuple(unit_counts)
                | "Sum" >> beam.CombinePerKey(sum))
