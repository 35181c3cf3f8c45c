"""The parse family: any supported corpus -> ParsedSentence shards, the layer every other family builds on."""
from __future__ import annotations

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig
from entailgen.schemas.records import ParsedSentence
from entailgen.transforms.io import texts_of
from entailgen.transforms.parsing import Parse


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Source records -> their texts -> dependency parses; a unit's texts share its split (context = source id)."""
    parsed = sources | "Texts" >> beam.FlatMap(texts_of) | "Parse" >> Parse(config.parser)
    return FamilyOutput(parsed.parsed, parsed.dead, context=lambda s: s.source_id)


FAMILY = Family(
    name="parse",
    record_type=ParsedSentence,
    samples=("text.txt", "paraphrase.tsv"),
    build=build,
    summary="corpus -> ParsedSentence (tokens + enhanced-style dependency arcs)",
    parses=lambda opts: True,
)
