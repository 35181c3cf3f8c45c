"""Dialogue phrases at arc level: With a Little Push's augmentation (Steen et al. 2023 §2.1) for a DAE arc model.

A dialogue response wraps its claim in words that need no grounding ("I think", "I love that!"), and an arc model
scores every arc of a response, so a wrapper's arcs, found nowhere in the grounding, would read as unsupported.
x' is a seeded phrase of nli-dialogue's PHRASES joined to x as nli-dialogue joins it, re-parsed; the arcs inside the
phrase and those joining it to x are 1 (they need no grounding), x's own arcs are labelled by membership in d(x) as
span deletion's are: "The old man gave the boy a book." -> "I think the old man gave the boy a book.", think->I and
think->gave 1, every arc of the man's giving 1 again.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ArcExample, ParsedSentence, Token
from entailgen.transforms.augment.common import EditAndLabel, membership_example
from entailgen.transforms.augment.dialogue import PHRASES, DialoguePhrase, join_phrase, starts_with_proper_noun

KIND = "dialogue"


@dataclass(frozen=True)
class DialogueArcsOptions:
    """Run seed (with the sentence id it picks the phrase) and the phrases drawn from."""

    seed: int = 0
    phrases: tuple[DialoguePhrase, ...] = PHRASES


def sentence_phrase(sentence: ParsedSentence, options: DialogueArcsOptions = DialogueArcsOptions()) -> str:
    """The phrase a sentence gets: one seeded draw per sentence."""
    return seeded_rng(options.seed, sentence.id, KIND).choice(options.phrases).text


def phrased_text(sentence: ParsedSentence, options: DialogueArcsOptions = DialogueArcsOptions()) -> str:
    """x' = the sentence's phrase + x, x's first word lower-cased unless it is a name or "I" (nli-dialogue's join)."""
    return join_phrase(sentence_phrase(sentence, options), sentence.text, starts_with_proper_noun(sentence))


def phrase_length(phrase: str, tokens: list[Token]) -> int:
    """How many of x''s first tokens spell the phrase (its characters, spaces aside)."""
    wanted, spelt, n = len(phrase.replace(" ", "")), 0, 0
    while spelt < wanted and n < len(tokens):
        spelt, n = spelt + len(tokens[n].text), n + 1
    return n


def label_dialogue(premise: ParsedSentence, phrased: ParsedSentence,
                   options: DialogueArcsOptions = DialogueArcsOptions()) -> ArcExample:
    """The example (x, x'): an arc touching the phrase's tokens 1, any other arc 1 if in d(x), else 0."""
    example = membership_example(premise, phrased, KIND, origin=premise)
    n = phrase_length(sentence_phrase(premise, options), phrased.tokens)
    return dataclasses.replace(example, arcs=[dataclasses.replace(a, entailed=1) if min(a.head, a.child) < n else a
                                              for a in example.arcs])


def dialogue_arcs(options: DialogueArcsOptions = DialogueArcsOptions()) -> EditAndLabel:
    """The augmentation: a seeded phrase before x, re-parsed and labelled (module docstring); common's
    ReparsingAugment runs it in a pipeline, its call on one sentence and a Reparse outside one."""
    return EditAndLabel(KIND, partial(phrased_text, options=options), partial(label_dialogue, options=options))
