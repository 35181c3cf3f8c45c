"""A document as the claims family sees it: paragraphs (blank lines), the parser's sentences, its named entities, and
the premise blocks at a SummaC granularity (Laban et al. 2022 §3)."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from entailgen.schemas.records import Token

GRANULARITIES = ("document", "paragraph", "2sents", "sentence")
PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


def paragraphs(text: str) -> list[str]:
    """The document's paragraphs (split on blank lines), whitespace inside each collapsed to single spaces."""
    return [" ".join(p.split()) for p in PARAGRAPH_BREAK.split(text) if p.strip()]


def document_text(paragraph_texts: list[str]) -> str:
    """The normalised document: its paragraphs joined by one blank line (what premises and spans refer to)."""
    return "\n\n".join(paragraph_texts)


@dataclass(frozen=True)
class Sentence:
    """A sentence of the document: its tokens (whitespace tokens left out, heads counted in the sentence) and where it
    starts in the document."""

    tokens: list[Token]
    start: int

    @property
    def pieces(self) -> tuple[tuple[str, str], ...]:
        """(text, whitespace after) per token: what claims are rebuilt from."""
        return pieces_of(self.tokens)

    @property
    def text(self) -> str:
        return join(self.pieces)


@dataclass(frozen=True)
class Entity:
    """A named-entity mention: contiguous tokens of one NER type within a sentence."""

    text: str
    label: str
    sentence: int
    start: int  # token index in the sentence
    end: int


def pieces_of(tokens: list[Token]) -> tuple[tuple[str, str], ...]:
    return tuple((t.text, " " if t.space_after else "") for t in tokens)


def join(pieces) -> str:
    """The text of (token, whitespace) pieces, without trailing whitespace."""
    return "".join(t + w for t, w in pieces).rstrip()


def _root(tokens: list[Token], i: int) -> int:
    """The root a token hangs from (a sentence is one dependency tree); cycles stop at the start token."""
    seen = {i}
    while tokens[i].head >= 0 and tokens[i].head not in seen:
        i = tokens[i].head
        seen.add(i)
    return i


def sentences_of(tokens: list[Token], paragraph: str, offset: int) -> list[Sentence]:
    """The parser's sentences of one paragraph (consecutive tokens under one root), with document offsets; a token's
    head is its position in its sentence (-1 for the root)."""
    groups: list[list[int]] = []
    last_root: Optional[int] = None
    for i, token in enumerate(tokens):
        if token.text.isspace():
            continue
        root = _root(tokens, i)
        if root != last_root:
            groups.append([])
            last_root = root
        groups[-1].append(i)
    sentences, position = [], 0
    for group in groups:
        first = paragraph.find(tokens[group[0]].text, position)
        first = position if first < 0 else first
        position_of = {i: j for j, i in enumerate(group)}  # heads as positions in the sentence: one tree of its own
        kept = [dataclasses.replace(tokens[i], head=position_of.get(tokens[i].head, -1)) for i in group]
        sentence = Sentence(kept, offset + first)
        position = first + len(sentence.text)
        sentences.append(sentence)
    return sentences


def entities_of(sentences: list[Sentence]) -> list[Entity]:
    """Every mention in the sentences, in order (adjacent tokens of the same NER type form one mention)."""
    mentions = []
    for s, sentence in enumerate(sentences):
        start = None
        for i, token in enumerate(sentence.tokens + [None]):
            label = token.ner if token is not None else "O"
            if start is not None and label != sentence.tokens[start].ner:
                mentions.append(Entity(join(sentence.pieces[start:i]), sentence.tokens[start].ner, s, start, i))
                start = None
            if start is None and label != "O":
                start = i
    return mentions


def blocks_of(granularity: str, text: str, paragraph_texts: list[str], sentences: list[Sentence]) -> list[str]:
    """The premise blocks: the whole document, its paragraphs, overlapping two-sentence windows, or its sentences."""
    if granularity == "document":
        return [text]
    if granularity == "paragraph":
        return list(paragraph_texts)
    texts = [s.text for s in sentences]
    if granularity == "sentence":
        return texts
    if granularity == "2sents":
        return [" ".join(texts[i:i + 2]) for i in range(max(len(texts) - 1, 1))] if texts else []
    raise ValueError(f"unknown granularity {granularity!r}; choose one of {', '.join(GRANULARITIES)}")
