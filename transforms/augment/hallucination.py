"""Hallucination (Goyal & Durrett 2020 §5.3): delete a random span of x; x is then a hypothesis that says more.

Premise x' = x minus the span (re-parsed), hypothesis x. Each arc of x is labelled 1 if it is in d(x') and 0 if it is
in d(x) \\ d(x'): the deleted words' arcs, and any arc whose attachment the deletion changed, are content the premise
no longer supports. We take d(x') from a re-parse of x' instead of assuming the remaining arcs survive, because that
is the paper's definition and because a deletion can change what remains (deleting "on" from "sat on the mat" loses
the sit -prep:on-> mat arc although "mat" is still there). Spans never cover the root, so x' keeps its main predicate.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Optional

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ArcExample, ParsedSentence
from entailgen.transforms.augment.common import EditAndLabel, membership_example, spaced_text

KIND = "hallucination"


@dataclass(frozen=True)
class HallucinationOptions:
    """Run seed and the longest span (in tokens) that may be deleted."""

    seed: int = 0
    max_span: int = 4


def deletable_spans(sentence: ParsedSentence, max_span: int = 4) -> list[tuple[int, int]]:
    """Spans [start, end) of 1..max_span tokens that hold a word (not only punctuation) and no root."""
    tokens = sentence.tokens
    spans = []
    for start in range(len(tokens)):
        for end in range(start + 1, min(start + max_span, len(tokens)) + 1):
            span = tokens[start:end]
            if any(t.head < 0 for t in span):
                break  # every longer span from this start covers the root too
            if any(t.pos != "PUNCT" for t in span):
                spans.append((start, end))
    return spans


def delete_span(sentence: ParsedSentence, start: int, end: int) -> str:
    """The text of x without tokens [start, end); a sentence that lost its first word gets a capital again."""
    kept = sentence.tokens[:start] + sentence.tokens[end:]
    text = spaced_text(kept)
    return text[:1].upper() + text[1:] if start == 0 and sentence.text[:1].isupper() else text


def hallucinate(sentence: ParsedSentence, options: HallucinationOptions = HallucinationOptions()) -> Optional[str]:
    """The premise text x': x minus one seeded deletable span, or None when x has none."""
    spans = deletable_spans(sentence, options.max_span)
    if not spans:
        return None
    start, end = seeded_rng(options.seed, sentence.id, KIND).choice(spans)
    return delete_span(sentence, start, end)


def label_hallucination(sentence: ParsedSentence, premise: ParsedSentence) -> ArcExample:
    """The example (x', x): arcs of x in d(x') are 1, arcs in d(x) \\ d(x') are 0."""
    return membership_example(premise, sentence, KIND, origin=sentence)


def hallucination(options: HallucinationOptions = HallucinationOptions()) -> EditAndLabel:
    """The augmentation: a seeded span deletion makes the premise, re-parsed; x is labelled against d(x')."""
    return EditAndLabel(KIND, partial(hallucinate, options=options), label_hallucination)
