"""Span deletion: cut a span of x's words, as Falke et al. (2019)'s summarisers do; x's arcs the cut re-joined are 0.

Premise x, hypothesis x' (re-parsed), labelled by membership in d(x) as word swap is (Goyal & Durrett 2020 §5.3):
cutting "investigated after Conrad was" from "Seven games involving Nimes were investigated after Conrad was arrested."
keeps games->seven, games->involving, involving->Nimes (1) and makes games the subject of arrested (0). Its words are
all x's, so the model learns that reused words in a new structure are not entailed (word swap's lesson, at the scale
of a clause); a cut that leaves the structure intact is an entailed compression.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Optional

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ArcExample, ParsedSentence, Token
from entailgen.transforms.augment.common import EditAndLabel, membership_example, spaced_text

KIND = "span_deletion"


@dataclass(frozen=True)
class SpanDeletionOptions:
    """Run seed, the span lengths cut (at least min_words, at most max_share of the sentence's words), and which of a
    sentence's seeded cuts this is (0 the first; `--span-cuts N` runs cuts 0..N-1, each a different text)."""

    seed: int = 0
    min_words: int = 2
    max_share: float = 0.5
    cut: int = 0


def cuttable_spans(sentence: ParsedSentence, options: SpanDeletionOptions = SpanDeletionOptions()
                    ) -> list[tuple[int, int]]:
    """Token ranges [i, j) that may be cut: they start and end on a word (so the closing punctuation stays), leave
    no punctuation first or twice in a row, and hold min_words to max_share of the sentence's words."""
    tokens = sentence.tokens
    is_word = [t.pos != "PUNCT" for t in tokens]
    words_before = [0]
    for w in is_word:
        words_before.append(words_before[-1] + w)
    most = int(words_before[-1] * options.max_share)
    next_is_word = is_word + [False]  # what follows a cut: a word, punctuation, or the end
    n = len(tokens)
    return [(i, j) for i in range(n) if is_word[i] for j in range(i + 1, n + 1) if is_word[j - 1]
            and options.min_words <= words_before[j] - words_before[i] <= most
            and (next_is_word[j] if i == 0 else is_word[i - 1] or next_is_word[j])]


def cut_tokens(tokens: list[Token], i: int, j: int) -> list[Token]:
    """Tokens without [i, j): the word before the cut takes the spacing of the cut's last ("24, was hanged." ->
    "24,."), and a cut sentence start passes its capital to the new first word."""
    out = tokens[:i] + tokens[j:]
    if i > 0:
        out[i - 1] = dataclasses.replace(tokens[i - 1], space_after=tokens[j - 1].space_after)
    if i == 0 and out and tokens[0].text[:1].isupper():
        out[0] = dataclasses.replace(out[0], text=out[0].text[:1].upper() + out[0].text[1:])
    return out


def cut_span(sentence: ParsedSentence, options: SpanDeletionOptions = SpanDeletionOptions()) -> Optional[str]:
    """The text x' of the sentence's seeded cut number options.cut, or None when x has fewer distinct cuts: cut 0 is
    one seeded draw among the spans, the later ones the other texts in a seeded order."""
    spans = cuttable_spans(sentence, options)
    if not spans:
        return None
    rng = seeded_rng(options.seed, sentence.id, KIND)
    first = spaced_text(cut_tokens(sentence.tokens, *rng.choice(spans)))
    if options.cut == 0:
        return first
    others = [text for text in dict.fromkeys(spaced_text(cut_tokens(sentence.tokens, i, j)) for i, j in spans)
              if text != first]
    rng.shuffle(others)
    return others[options.cut - 1] if options.cut <= len(others) else None


def label_span_deletion(premise: ParsedSentence, cut: ParsedSentence) -> ArcExample:
    """The example (x, x'): arcs of x' also in d(x) are 1, arcs the cut created 0."""
    return membership_example(premise, cut, KIND, origin=premise)


def span_deletion(options: SpanDeletionOptions = SpanDeletionOptions()) -> EditAndLabel:
    """The augmentation: a seeded span cut from x, re-parsed and labelled against d(x)."""
    return EditAndLabel(KIND, partial(cut_span, options=options), label_span_deletion)
