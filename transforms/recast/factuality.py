"""Event-factuality recast (Poliak 2020 ch. 3): a predicate with a UDS factuality value gives "The <gerund>
happened" and "The <gerund> did not happen", the one matching the value's sign entailed."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import partial

import apache_beam as beam

from entailgen.schemas.records import RtePair, Skipped
from entailgen.schemas.sources import FactualityAnnotation
from entailgen.transforms.recast.common import DEAD, SKIPPED, RecastError, RecastFn, rte_pair

PHENOMENON = "factuality"
STAGE = "recast_factuality"
HAPPENED = ("factuality/happened", "The {event} happened")
DID_NOT_HAPPEN = ("factuality/did-not-happen", "The {event} did not happen")

IRREGULAR_GERUNDS = {"be": "being", "singe": "singeing", "tinge": "tingeing"}
# Polysyllabic verbs stressed on the last syllable double the final consonant (begin -> beginning, occur ->
# occurring), as do a few stressed first whose last syllable is a word that doubles (format, program, kidnap).
FINAL_STRESS_DOUBLING = frozenset("""
abet abhor acquit admit allot annul befit begin beget commit compel concur confer control debar defer demur deter
disbar dispel embed emit equip excel expel extol forbid forget format handicap impel incur infer kidnap occur omit
patrol permit prefer program propel rebel rebut recap recur refer refit regret remit repel rerun reset submit transfer
transmit""".split())
# A compound of a stressed particle and a one-syllable verb doubles as the verb does (sidestep -> sidestepping,
# undercut, overlap, outwit, upset, input, offset); other polysyllables do not (visit -> visiting, open -> opening,
# travel -> traveling: the DNC's American spelling).
STRESSED_PREFIXES = ("back", "down", "in", "mis", "off", "out", "over", "side", "under", "up")
VOWELS = "aeiou"
_LEMMA = re.compile(r"[a-z]+(?:-[a-z]+)*")


@dataclass(frozen=True)
class FactualityConfig:
    """Values with |value| < threshold are ambiguous and skipped. UDS factuality values run over roughly [-3, 3]
    (sign: happened or not, magnitude: annotator confidence); below 0.5 annotators were split or unsure, so the
    sign, and with it both labels, would be noise."""

    threshold: float = 0.5


def _syllables(word: str) -> int:
    """Vowel groups in a word (y counts as a vowel after the first letter), enough to tell one syllable from more."""
    return len(re.findall(r"[aeiouy]+", word[:1].replace("y", "") + word[1:]))


def _doubles_final_consonant(word: str) -> bool:
    """Whether -ing doubles the last letter: one-syllable consonant-vowel-consonant words (run, stop, quit), final-
    stress verbs and a stressed particle's compounds of those (sidestep); never after w, x or y."""
    if word in FINAL_STRESS_DOUBLING:
        return True
    if any(word.startswith(p) and len(word) - len(p) >= 3 and _doubles_final_consonant(word[len(p):])
           for p in STRESSED_PREFIXES):
        return True
    letters = word.replace("qu", "qw")  # the u of qu is part of the consonant: quit -> quitting
    if len(letters) < 3:
        return False
    before, vowel, last = letters[-3:]
    return (last not in VOWELS + "wxy" and vowel in VOWELS and before not in VOWELS
            and _syllables(letters) == 1)


def _gerund(word: str) -> str:
    if word in IRREGULAR_GERUNDS:
        return IRREGULAR_GERUNDS[word]
    if word.endswith("ie"):
        return word[:-2] + "ying"  # lie -> lying
    if word.endswith(("ee", "ye", "oe")):
        return word + "ing"  # agree -> agreeing, dye -> dyeing
    if word.endswith("e") and len(word) > 2:
        return word[:-1] + "ing"  # make -> making
    if word.endswith("c") and len(word) > 2 and word[-2] in VOWELS:
        return word + "king"  # panic -> panicking
    if _doubles_final_consonant(word):
        return word + word[-1] + "ing"  # run -> running
    return word + "ing"


def gerund(lemma: str) -> str:
    """The -ing form of a verb lemma, which nominalises the event ("learn" -> "learning"); hyphenated lemmas
    inflect their last part ("re-elect" -> "re-electing"); a lemma that is not a word raises RecastError."""
    word = lemma.strip().lower()
    if not _LEMMA.fullmatch(word):
        raise RecastError(f"predicate lemma {lemma!r} is not a word that can be nominalised")
    head, hyphen, last = word.rpartition("-")
    return head + hyphen + _gerund(last)


def recast_factuality(annotation: FactualityAnnotation,
                      config: FactualityConfig = FactualityConfig()) -> list[RtePair] | Skipped:
    """Both hypotheses for one predicate, the one matching the value's sign entailed; Skipped when ambiguous."""
    value = annotation.value
    if value is None or math.isnan(value):
        raise RecastError(f"factuality value is {value!r}")
    if abs(value) < config.threshold or value == 0:
        return Skipped(annotation.source, annotation.source_id, STAGE, "AmbiguousValue")  # |value| < threshold
    if not annotation.predicate_lemma:  # an inflected token would nominalise wrongly ("left" -> "lefting")
        raise RecastError(f"no predicate lemma (token {annotation.predicate_index})")
    event = gerund(annotation.predicate_lemma)
    premise = annotation.sentence or " ".join(annotation.tokens)
    if not premise.strip():
        raise RecastError("empty sentence")
    happened = value > 0
    return [rte_pair(premise, text.format(event=event), entailed, PHENOMENON, template, annotation.source,
                     annotation.source_id)
            for (template, text), entailed in ((HAPPENED, happened), (DID_NOT_HAPPEN, not happened))]


class RecastFactuality(beam.PTransform):
    """FactualityAnnotation -> RtePair (main 'pairs'), Skipped ('skipped': ambiguous values) and DeadLetter ('dead')."""

    def __init__(self, config: FactualityConfig = FactualityConfig()):
        super().__init__()
        self.config = config

    def expand(self, annotations):
        return annotations | "Recast" >> beam.ParDo(
            RecastFn(STAGE, partial(recast_factuality, config=self.config))).with_outputs(DEAD, SKIPPED, main="pairs")
