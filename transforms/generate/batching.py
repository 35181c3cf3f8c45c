"""Generator batches made from content alone, and a model-backed beam search over them.

A sentence's beam can depend on what it is batched with (padding moves the last float bits, bf16 more; Apertium's
output depends on its stream), so batches must not come from how a runner bundles elements: units are hashed into
ceil(n / size) buckets by their text, each bucket sorted (by length, then text, then id) and cut into batches of at
most size. The same inputs then give the same batches, candidates and shards in any runner mode.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.utils import shared

from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import DeadLetter, dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate.rank import normalise
from entailgen.transforms.retry import isolate_failures

DEAD = "dead"


def content_text(unit: SourceText) -> str:
    """The unit's text as batching sees it (a non-text unit sorts as empty and fails in the generator, not here)."""
    return normalise(unit.text) if isinstance(unit.text, str) else ""


def content_bucket(text: str, buckets: int, salt: str = "generate") -> int:
    """The batch bucket of a sentence, from its text alone."""
    return int(unit_hash(salt, normalise(text)) * max(buckets, 1))


def by_text(unit: SourceText) -> tuple:
    return content_text(unit), unit.source_id


def by_length(unit: SourceText) -> tuple:
    """Shortest first, so a batch's sentences pad to similar lengths (beam search buckets by length inside)."""
    text = content_text(unit)
    return len(text), text, unit.source_id


def content_batches(units: Iterable[SourceText], size: int, key: Callable = by_length) -> list[list[SourceText]]:
    """A bucket's units sorted by key, cut into batches of at most size."""
    ordered = sorted(units, key=key)
    return [ordered[i:i + size] for i in range(0, len(ordered), size)]


class ContentBatches(beam.PTransform):
    """SourceText -> lists of at most size SourceText whose composition depends on the inputs alone."""

    def __init__(self, size: int, salt: str = "generate", key: Callable = by_length):
        super().__init__()
        self.size, self.salt, self.key = size, salt, key

    def expand(self, units):
        size, salt, key = self.size, self.salt, self.key
        count = units | "Count" >> beam.combiners.Count.Globally()
        return (units
                | "Bucket" >> beam.Map(lambda u, n: (content_bucket(content_text(u), -(-n // size), salt), u),
                                       n=beam.pvalue.AsSingleton(count))
                | "ByBucket" >> beam.GroupByKey()
                | "Batches" >> beam.FlatMapTuple(lambda _, bucket: content_batches(bucket, size, key)))


class _BeamSearch(beam.DoFn):
    """Content batches -> Candidates through a ModelHandler's load_model / run_inference; the model is loaded once
    per worker process and shared by its threads. A failing batch is retried in halves, so only the unit that fails
    becomes a DeadLetter."""

    def __init__(self, handler):
        self.handler = handler
        self.model_handle = shared.Shared()
        self.generated = beam.metrics.Metrics.counter("entailgen", "generated")
        self.empty = beam.metrics.Metrics.counter("entailgen", "generate_empty")
        self.dead = beam.metrics.Metrics.counter("entailgen", "generate_dead")

    def setup(self):
        self.model = self.model_handle.acquire(self.handler.load_model)

    def process(self, batch: Sequence[SourceText]) -> Iterable[Any]:
        beams = isolate_failures(  # a model error on one input must not sink the job
            batch, lambda units: self.handler.run_inference(units, self.model),
            lambda unit, exc: dead_letter(unit.source, unit.source_id, "generate", type(exc).__name__, str(exc),
                                          unit.text), what="beam search")
        for beam_ in beams:
            if isinstance(beam_, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, beam_)
                continue
            for candidate in beam_:
                if candidate.text:
                    self.generated.inc()
                    yield candidate
                else:
                    self.empty.inc()


class BeamSearchCandidates(beam.PTransform):
    """SourceText x -> Candidate h1..hk from a model handler over content batches (main output 'candidates') and
    DeadLetter (output 'dead')."""

    def __init__(self, handler, batch_size: int):
        super().__init__()
        self.handler, self.batch_size = handler, batch_size

    def expand(self, units):
        return (units
                | "Batches" >> ContentBatches(self.batch_size)
                | "BeamSearch" >> beam.ParDo(_BeamSearch(self.handler)).with_outputs(DEAD, main="candidates"))
