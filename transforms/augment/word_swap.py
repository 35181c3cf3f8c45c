"""Word swap (Goyal & Durrett 2020 §5.3): exchange two same-POS words of x; x's changed arcs are not entailed.

Premise x, hypothesis x' (re-parsed): an arc of x' in d(x) ∩ d(x') is labelled 1, a new or changed arc 0. Swapping
"old" and "young" in "The old man gave the young boy a book." keeps give->man, give->boy, give->book (1) and
breaks man->old into man->young (0): a hypothesis lexically identical to its premise that still is not entailed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Optional

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ArcExample, ParsedSentence, Token
from entailgen.transforms.augment.common import EditAndLabel, membership_example, spaced_text

KIND = "word_swap"
# Content POS tags whose words carry arcs worth breaking; function words would mostly yield ungrammatical noise.
SWAPPABLE_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})


@dataclass(frozen=True)
class WordSwapOptions:
    """Run seed and which universal POS tags may be swapped."""

    seed: int = 0
    pos: frozenset = SWAPPABLE_POS


def swappable_pairs(sentence: ParsedSentence, pos: frozenset = SWAPPABLE_POS) -> list[tuple[int, int]]:
    """Index pairs (i < j) of tokens sharing a POS tag but not a word: the swaps that change the sentence."""
    tokens = sentence.tokens
    return [(i, j) for i in range(len(tokens)) for j in range(i + 1, len(tokens))
            if tokens[i].pos == tokens[j].pos and tokens[i].pos in pos
            and tokens[i].text.lower() != tokens[j].text.lower()]


def _recased(token: Token, sentence_initial: bool) -> str:
    """The token's text cased for its new position: capitalised first, lower-cased elsewhere unless a name or "I"."""
    text = token.text
    if sentence_initial:
        return text[:1].upper() + text[1:]
    if token.pos == "PROPN" or text == "I" or not text[:1].isupper() or text[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def swap_tokens(tokens: list[Token], i: int, j: int) -> list[Token]:
    """Tokens with words i and j exchanged; each slot keeps its spacing, the sentence start keeps its capital."""
    out = list(tokens)
    initial = 0 if tokens and tokens[0].text[:1].isupper() else -1
    for slot, word in ((i, tokens[j]), (j, tokens[i])):
        out[slot] = dataclasses.replace(tokens[slot], text=_recased(word, slot == initial))
    return out


def swap_words(sentence: ParsedSentence, options: WordSwapOptions = WordSwapOptions()) -> Optional[str]:
    """The text x' of one seeded swap of x, or None when x has no two same-POS words to swap."""
    pairs = swappable_pairs(sentence, options.pos)
    if not pairs:
        return None
    i, j = seeded_rng(options.seed, sentence.id, KIND).choice(pairs)
    return spaced_text(swap_tokens(sentence.tokens, i, j))


def label_word_swap(premise: ParsedSentence, swapped: ParsedSentence) -> ArcExample:
    """The example (x, x'): arcs of x' also in d(x) are 1, new or changed arcs 0."""
    return membership_example(premise, swapped, KIND, origin=premise)


def word_swap(options: WordSwapOptions = WordSwapOptions()) -> EditAndLabel:
    """The augmentation: a seeded same-POS swap of x, re-parsed and labelled against d(x)."""
    return EditAndLabel(KIND, partial(swap_words, options=options), label_word_swap)
