"""The texts of a source record that the parse stage must parse, each tagged with its role."""
from __future__ import annotations

from entailgen.schemas.sources import (DatasetRow, DncPair, Document, FactualityAnnotation, LabelledClaim, NerSentence,
                                       NliPair, ParaphrasePair, Review, SourceText)
from entailgen.transforms.io.base import detokenize


def texts_of(record) -> list[SourceText]:
    """SourceTexts to parse: a paraphrase pair's x and h* (roles source, gold), an NLI or DNC pair's premise and hypothesis."""
    def text(value: str, role: str = "text") -> SourceText:
        return SourceText(value, record.source, record.source_id, role)

    if isinstance(record, SourceText):
        return [record]
    if isinstance(record, ParaphrasePair):
        return [text(record.text, "source"), text(record.gold, "gold")]
    if isinstance(record, NliPair):
        return [text(record.premise, "premise"), text(record.hypothesis, "hypothesis")]
    if isinstance(record, DncPair):
        return [text(record.context, "premise"), text(record.hypothesis, "hypothesis")]
    if isinstance(record, Document):
        return [text(record.text)]
    if isinstance(record, LabelledClaim):
        return [text(record.document, "premise"), text(record.claim, "hypothesis")]
    if isinstance(record, Review):
        return [text(record.text)]
    if isinstance(record, NerSentence):
        return [text(detokenize(record.tokens))]
    if isinstance(record, FactualityAnnotation):
        return [text(record.sentence or detokenize(record.tokens))]
    if isinstance(record, DatasetRow):  # a finished dataset's row: its pair's texts, or its text
        fields = ("premise", "hypothesis", "claim", "text", "gold")
        return [text(v, f) for f in fields if isinstance(v := getattr(record.record, f, None), str) and v.strip()]
    raise TypeError(f"no texts to parse in a {type(record).__name__}")
