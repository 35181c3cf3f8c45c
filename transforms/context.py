"""Arc rows read in their document's context (train as you score): a dae row whose premise is a sentence of a given
document gets as premise that sentence packed with the document's sentences that hold most of its hypothesis's
content words (transforms.passages, as the scorer's `--evidence packed` reads a summary sentence), in document order,
within a number of words. DAE §4 labels an arc 1 when it is in d(x) ∪ d(h*); with the premise grown to x and its
context, d(premise) grows too: an arc labelled 0 whose identity a packed context sentence has becomes 1 (the premise
now supports it); 1 and unlabelled arcs keep their labels. A row whose premise is in no document is kept as it is."""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

import apache_beam as beam

from entailgen.schemas.records import ArcExample
from entailgen.schemas.sources import Document
from entailgen.transforms.arcs import arc_keys, extract_arcs
from entailgen.transforms.claims.blocks import document_text, paragraphs, sentences_of
from entailgen.transforms.claims.claims import document_id
from entailgen.transforms.parser import Parser, ParserConfig
from entailgen.transforms.passages import packed
from entailgen.transforms.views import held_words

IN_CONTEXT, NO_DOCUMENT, SUPPORTED = "rows_in_context", "rows_in_no_document", "arcs_supported_by_context"


@dataclass(frozen=True)
class ContextConfig:
    """Where the documents are and how many words a premise in context may hold (~ 128 tokens)."""

    documents: str
    words: int = 96


@dataclass(frozen=True)
class DocumentSentences:
    """A document as its sentences and each sentence's arc identities d(s)."""

    document_id: str
    sentences: tuple[str, ...]
    keys: tuple[frozenset, ...]


def normalised(text: str) -> str:
    """A sentence as a premise is matched: whitespace runs as one space."""
    return " ".join(text.split())


def in_context(example: ArcExample, document: DocumentSentences, words: int, counts: Optional[Counter] = None
               ) -> ArcExample:
    """The row with its premise packed in the document's context and its 0 arcs that the context supports made 1
    (module docstring); counts gets the arcs so relabelled."""
    at = [normalised(s) for s in document.sentences].index(normalised(example.premise))
    room = words - len(example.hypothesis.split())
    passage = packed(document.sentences, [len(s.split()) for s in document.sentences],
                     held_words(document.sentences, example.hypothesis), room, first=at)
    context = frozenset().union(*(document.keys[i] for i in passage.sentences if i != at))
    arcs = [dataclasses.replace(a, entailed=1) if a.entailed == 0 and (a.head_lemma, a.child_lemma, a.rel) in context
            else a for a in example.arcs]
    if counts is not None:
        counts[SUPPORTED] += sum(a.entailed != b.entailed for a, b in zip(arcs, example.arcs))
    return dataclasses.replace(example, premise=passage.text, arcs=arcs, document_id=document.document_id)


class _DocumentSentences(beam.DoFn):
    """Documents -> DocumentSentences, the parser loaded once per worker."""

    def __init__(self, config: ParserConfig):
        self.config = config

    def setup(self):
        self.parser = Parser(self.config)

    def process(self, document: Document):
        parts = paragraphs(document.text)
        sentences, offset = [], 0
        for paragraph, tokens in zip(parts, self.parser.tokens(parts)):
            sentences.extend(sentences_of(tokens, paragraph, offset))
            offset += len(paragraph) + 2
        yield DocumentSentences(document_id(document_text(parts)), tuple(s.text for s in sentences),
                                tuple(arc_keys(extract_arcs(s.tokens)) for s in sentences))


def _placed(key: str, grouped: dict, words: int = ContextConfig.words):
    """The rows whose premise is this sentence, each in the context of the first document (by id) that has it."""
    documents = sorted(grouped["documents"], key=lambda d: d.document_id)
    counts: Counter = Counter()
    for row in sorted(grouped["rows"], key=lambda r: r.id):
        if documents:
            yield in_context(row, documents[0], words, counts)
            counts[IN_CONTEXT] += 1
        else:
            yield row
            counts[NO_DOCUMENT] += 1
    for name, n in counts.items():
        beam.metrics.Metrics.counter("context", name).inc(n)


class InContext(beam.PTransform):
    """ArcExample rows -> the same rows, each whose premise a document holds read in that document's context."""

    def __init__(self, config: ContextConfig, documents: beam.PCollection, parser: ParserConfig):
        super().__init__()
        self.config, self.documents, self.parser = config, documents, parser

    def expand(self, rows):
        by_sentence = (self.documents
                       | "Sentences" >> beam.ParDo(_DocumentSentences(self.parser))
                       | "BySentence" >> beam.FlatMap(lambda d: [(normalised(s), d) for s in set(d.sentences)]))
        return ({"rows": rows | "ByPremise" >> beam.WithKeys(lambda r: normalised(r.premise)),
                 "documents": by_sentence}
                | "Join" >> beam.CoGroupByKey()
                | "Place" >> beam.FlatMapTuple(_placed, self.config.words))


__all__ = ["ContextConfig", "DocumentSentences", "InContext", "in_context"]
