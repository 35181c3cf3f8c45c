"""What the recasts share: the RtePair builder, the recast error, the 'skipped' record and the per-record DoFn."""
from __future__ import annotations

from typing import Callable, Iterable

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, DeadLetter, RtePair, Skipped, dead_letter

DEAD = "dead"
SKIPPED = "skipped"


class RecastError(ValueError):
    """An annotation that cannot be recast (malformed tags, no verb lemma, unknown item): it becomes a DeadLetter."""


def rte_pair(premise: str, hypothesis: str, entailed: bool, phenomenon: str, template: str, source: str,
             source_id: str) -> RtePair:
    """An RtePair whose id hashes its content, so the same recast gives the same id in any runner."""
    label = ENTAILED if entailed else NOT_ENTAILED
    return RtePair(id=content_id(phenomenon, template, source, source_id, premise, hypothesis, label),
                   premise=premise, hypothesis=hypothesis, label=label, phenomenon=phenomenon, template=template,
                   source=source, source_id=source_id)


def recast_dead(record, stage: str, error: Exception) -> DeadLetter:
    """The DeadLetter of an input record a recast could not handle, with the record itself as raw context."""
    return dead_letter(getattr(record, "source", ""), getattr(record, "source_id", ""), stage,
                       type(error).__name__, str(error), repr(record))


class RecastFn(beam.DoFn):
    """Run a pure recast per record: RtePairs out, Skipped to 'skipped', failures to 'dead'; one outcome per input."""

    def __init__(self, stage: str, recast: Callable[..., "list[RtePair] | Skipped"]):
        self.stage = stage
        self.recast = recast
        self.records = beam.metrics.Metrics.counter("entailgen", f"{stage}_in")
        self.pairs = beam.metrics.Metrics.counter("entailgen", f"{stage}_pairs")
        self.skipped = beam.metrics.Metrics.counter("entailgen", f"{stage}_skipped")
        self.dead = beam.metrics.Metrics.counter("entailgen", f"{stage}_dead")

    def process(self, record, *side_inputs) -> Iterable:
        self.records.inc()
        try:
            result = self.recast(record, *side_inputs)
        except Exception as error:  # any failure on one record is that record's dead letter, not the bundle's
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, recast_dead(record, self.stage, error))
            return
        if isinstance(result, Skipped):
            self.skipped.inc()
            yield pvalue.TaggedOutput(SKIPPED, result)
            return
        self.pairs.inc(len(result))
        yield from result
