"""Input records as the readers produce them: one per good input unit (line, CoNLL block, annotated predicate)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class SourceText:
    """A text to parse, with where it came from and what role it plays (source, gold, premise, ...)."""

    text: str
    source: str
    source_id: str
    role: str = "text"


@dataclass(frozen=True)
class ParaphrasePair:
    """An input sentence x and its gold paraphrase h* (ParaNMT-style)."""

    source_id: str
    source: str
    text: str
    gold: str


@dataclass(frozen=True)
class NerSentence:
    """A tokenised sentence with IOB/BIO entity tags (CoNLL-2003, GMB) and the part-of-speech tags both formats carry
    (Penn tags; empty where none were given)."""

    source_id: str
    source: str
    tokens: list[str]
    tags: list[str]
    pos: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FactualityAnnotation:
    """A predicate in a sentence with a factuality value (UDS: positive happened, negative did not)."""

    source_id: str
    source: str
    tokens: list[str]
    predicate_index: int
    predicate_lemma: str
    value: float
    sentence: str = ""


@dataclass(frozen=True)
class Review:
    """A sentiment-labelled sentence about an item (product, movie, restaurant); label 1 positive, 0 negative."""

    source_id: str
    source: str
    text: str
    label: int
    item: str


@dataclass(frozen=True)
class NliPair:
    """An NLI premise/hypothesis with its 3-way label (SNLI/MNLI/ANLI field names normalised)."""

    source_id: str
    source: str
    premise: str
    hypothesis: str
    label: str
    dataset_id: Optional[str] = None


@dataclass(frozen=True)
class DncPair:
    """A pair of the Diverse NLI Collection's JSON (e.g. recast_kg_relations): context, hypothesis, 2-way label."""

    source_id: str
    source: str
    context: str
    hypothesis: str
    label: str  # entailed / not-entailed
    type_of_inference: str = ""


@dataclass(frozen=True)
class Document:
    """A document to draw claims from (FactCC {id,text}, CNN/DM article, XSum document, a plain-text block); its
    reference summary (CNN/DM highlights, XSum summary) when the layout has one."""

    source_id: str
    source: str
    text: str
    summary: Optional[str] = None
    dataset_id: Optional[str] = None


@dataclass(frozen=True)
class LabelledClaim:
    """A human-labelled (document, claim) pair of a consistency set (FactCC annotated: CORRECT / INCORRECT)."""

    source_id: str
    source: str
    document: str
    claim: str
    label: str
    dataset_id: Optional[str] = None


@dataclass(frozen=True)
class DatasetRow:
    """A row of a finished entailgen dataset given as input (families compose: nli-dialogue over a claims dataset):
    its record, under the dataset folder's name and the row's id."""

    source_id: str
    source: str
    record: object
