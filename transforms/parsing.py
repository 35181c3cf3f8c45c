"""The parse stage: SourceText units -> ParsedSentence, the parser loaded once per worker; failures are dead letters."""
from __future__ import annotations

from typing import Iterable, Optional

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.records import ParsedSentence, dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.parser import Parser, ParserConfig, parse_units
from entailgen.transforms.retry import isolate_failures

DEAD = "dead"


class _ParseBatches(beam.DoFn):
    """Parse batches of SourceText with a parser loaded once per worker in setup()."""

    def __init__(self, config: ParserConfig):
        self.config = config
        self.parser: Optional[Parser] = None
        self.parsed = beam.metrics.Metrics.counter("entailgen", "parsed")
        self.dead = beam.metrics.Metrics.counter("entailgen", "parse_dead")

    def setup(self):
        self.parser = Parser(self.config)

    def process(self, batch: list[SourceText]) -> Iterable:
        results = isolate_failures(
            batch, lambda units: parse_units(self.parser, units),
            lambda unit, exc: dead_letter(unit.source, unit.source_id, "parse", type(exc).__name__, str(exc),
                                          unit.text), what="parse batch")
        for r in results:
            if isinstance(r, ParsedSentence):
                self.parsed.inc()
                yield r
            else:
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, r)


class Parse(beam.PTransform):
    """SourceText -> ParsedSentence (main output) and DeadLetter (output 'dead')."""

    def __init__(self, config: ParserConfig = ParserConfig()):
        super().__init__()
        self.config = config

    def expand(self, units):
        return (units
                | "Batch" >> beam.BatchElements(min_batch_size=self.config.batch_size,
                                                max_batch_size=self.config.batch_size)
                | "Parse" >> beam.ParDo(_ParseBatches(self.config)).with_outputs(DEAD, main="parsed"))
