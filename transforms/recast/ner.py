"""NER recast (Poliak 2020 ch. 3): each entity mention gives "NP is a/an Label", entailed with its true tag and
not entailed with a tag drawn from the prior of tags seen for that phrase in the corpus."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Iterable, Mapping, Optional

import apache_beam as beam

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import RtePair, Skipped
from entailgen.schemas.sources import NerSentence
from entailgen.transforms.recast.common import DEAD, SKIPPED, RecastError, RecastFn, rte_pair

PHENOMENON = "ner"
TEMPLATE = "ner/is-a"
STAGE = "recast_ner"

# Verbalised entity types, keyed by the lowercased tag type: CoNLL-2003 (PER LOC ORG MISC) and GMB
# (geo gpe per org tim art eve nat).
LABEL_NOUNS: Mapping[str, str] = {
    "per": "person",
    "loc": "location",
    "org": "organization",
    "misc": "miscellaneous entity",
    "geo": "geographical entity",
    "gpe": "geopolitical entity",
    "tim": "time",
    "art": "artifact",
    "eve": "event",
    "nat": "natural phenomenon",
}
# Types whose mentions never take a preceding "the" into the hypothesis ("the Clinton administration").
NO_ARTICLE_TYPES = frozenset({"per"})
# Vowel-letter words that start with a consonant sound (and vice versa), for a/an.
_CONSONANT_SOUND = ("uni", "use", "usu", "eu", "one", "once")
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir")


@dataclass(frozen=True)
class Mention:
    """One entity mention: its token span, its own words, its tag type, and the subject the hypothesis uses."""

    start: int
    end: int
    phrase: str
    entity_type: str
    subject: str


@dataclass(frozen=True)
class NerRecastConfig:
    """The run seed, mixed with each mention's id to draw its not-entailed label."""

    seed: int = 0


@dataclass(frozen=True)
class TagPrior:
    """Corpus-level tag counts: per phrase and overall; the not-entailed label is drawn from them."""

    by_phrase: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    overall: Mapping[str, int] = field(default_factory=dict)

    def alternatives(self, phrase: str, true_type: str) -> list[tuple[str, int]]:
        """Other tags seen for the phrase, else other tags of the corpus, with their counts, in a stable order."""
        for counts in (self.by_phrase.get(phrase, {}), self.overall):
            others = sorted((t, n) for t, n in counts.items() if t != true_type and n > 0)
            if others:
                return others
        return []


def indefinite_article(noun: str) -> str:
    """'a' or 'an' by the sound of the noun's first letter ("an organization", "a university", "an hour")."""
    word = noun.lower()
    if word.startswith(_VOWEL_SOUND):
        return "an"
    if word.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if word[:1] in "aeiou" else "a"


def verbalise(entity_type: str) -> str:
    """The label phrase of a tag type: 'a person', 'an organization', 'an event'."""
    noun = LABEL_NOUNS[entity_type]
    return f"{indefinite_article(noun)} {noun}"


def _split_tag(tag: str) -> tuple[str, Optional[str]]:
    """(prefix, type) of a BIO/IOB tag: ('O', None), ('B', 'per'), ('I', 'geo'); a bare type (IO style) is 'I'."""
    if tag == "O":
        return "O", None
    prefix, entity_type = (tag[0], tag[2:]) if tag[:2] in ("B-", "I-") else ("I", tag)
    entity_type = entity_type.split("-", 1)[0].lower()  # GMB fine tags: per-giv -> per
    if entity_type not in LABEL_NOUNS:
        raise RecastError(f"unknown entity tag {tag!r} (known types: {', '.join(sorted(LABEL_NOUNS))})")
    return prefix, entity_type


def modifies_a_noun(sentence: NerSentence, end: int) -> bool:
    """Whether the mention ending at `end` modifies a noun after it ("the Paris metro", "The Japanese carmaker"):
    the next token is a noun outside any mention, by the sentence's POS tags (unknown without them)."""
    return len(sentence.pos) == len(sentence.tokens) and end < len(sentence.tokens) \
        and sentence.pos[end].startswith("NN") and sentence.tags[end] == "O"


def _subject(sentence: NerSentence, start: int, end: int, entity_type: str) -> str:
    """The hypothesis subject: the mention, with a preceding 'the' kept where the mention is the noun phrase ("The
    United States"), not where it modifies a larger one ("the Paris metro": "Paris"), sentence-cased."""
    tokens = sentence.tokens
    words = list(tokens[start:end])
    if entity_type not in NO_ARTICLE_TYPES and start > 0 and tokens[start - 1].lower() == "the" \
            and words[0].lower() != "the" and not modifies_a_noun(sentence, end):
        words.insert(0, "The")
    if words[0] == "the":
        words[0] = "The"
    return " ".join(words)


def entity_mentions(sentence: NerSentence) -> list[Mention]:
    """The entity mentions of a BIO (IOB2) or IOB1 tagged sentence; malformed input raises RecastError."""
    tokens, tags = sentence.tokens, sentence.tags
    if len(tokens) != len(tags):
        raise RecastError(f"{len(tokens)} tokens but {len(tags)} tags")
    spans: list[list] = []  # [start, end, type]
    previous: Optional[str] = None
    for i, tag in enumerate(tags):
        prefix, entity_type = _split_tag(tag)
        if entity_type is None:
            previous = None
            continue
        if prefix == "B" or entity_type != previous:
            spans.append([i, i + 1, entity_type])
        else:
            spans[-1][1] = i + 1
        previous = entity_type
    return [Mention(start, end, " ".join(tokens[start:end]), entity_type, _subject(sentence, start, end, entity_type))
            for start, end, entity_type in spans]


def tag_prior(sentences: Iterable[NerSentence]) -> TagPrior:
    """The corpus tag prior (pure): counts of each tag per mention phrase and overall; malformed sentences add none."""
    fn = TagPriorFn()
    accumulator = fn.create_accumulator()
    for sentence in sentences:
        accumulator = fn.add_input(accumulator, sentence)
    return fn.extract_output(accumulator)


class TagPriorFn(beam.CombineFn):
    """Combine NerSentences into their TagPrior (a corpus-level side input for RecastNer)."""

    def create_accumulator(self):
        return Counter(), Counter()

    def add_input(self, accumulator, sentence):
        by_phrase, overall = accumulator
        try:
            mentions = entity_mentions(sentence)
        except RecastError:  # recast_ner sends this sentence to 'dead'; the prior only counts well-formed tags
            return accumulator
        for mention in mentions:
            by_phrase[(mention.phrase, mention.entity_type)] += 1
            overall[mention.entity_type] += 1
        return accumulator

    def merge_accumulators(self, accumulators):
        by_phrase, overall = Counter(), Counter()
        for phrases, types in accumulators:
            by_phrase.update(phrases)
            overall.update(types)
        return by_phrase, overall

    def extract_output(self, accumulator):
        by_phrase, overall = accumulator
        phrases: dict[str, dict[str, int]] = {}
        for (phrase, entity_type), n in sorted(by_phrase.items()):
            phrases.setdefault(phrase, {})[entity_type] = n
        return TagPrior(phrases, dict(sorted(overall.items())))


def recast_ner(sentence: NerSentence, prior: TagPrior,
               config: NerRecastConfig = NerRecastConfig()) -> "list[RtePair] | Skipped":
    """Two pairs per distinct mention: "NP is a <true label>" entailed, "NP is a <drawn label>" not entailed;
    a sentence without mentions is Skipped (counted), not silently lost."""
    premise = " ".join(sentence.tokens)
    pairs: list[RtePair] = []
    seen: set[tuple[str, str]] = set()
    mentions = entity_mentions(sentence)
    if not mentions:
        return Skipped(sentence.source, sentence.source_id, STAGE, "NoEntityMention")
    for mention in mentions:
        if (mention.subject, mention.entity_type) in seen:
            continue
        seen.add((mention.subject, mention.entity_type))
        alternatives = prior.alternatives(mention.phrase, mention.entity_type)
        if not alternatives:
            raise RecastError(f"no tag other than {mention.entity_type!r} in the corpus prior for {mention.phrase!r}")
        mention_id = content_id(sentence.source, sentence.source_id, mention.start, mention.end)
        rng = seeded_rng(config.seed, mention_id, "ner-not-entailed")
        drawn = rng.choices([t for t, _ in alternatives], weights=[n for _, n in alternatives])[0]
        for entity_type, entailed in ((mention.entity_type, True), (drawn, False)):
            pairs.append(rte_pair(premise, f"{mention.subject} is {verbalise(entity_type)}", entailed, PHENOMENON,
                                  TEMPLATE, sentence.source, sentence.source_id))
    return pairs


class RecastNer(beam.PTransform):
    """NerSentence -> RtePair (main 'pairs'), DeadLetter ('dead') and Skipped ('skipped'); the tag prior is
    computed from the input unless a prior PCollection (one TagPrior) is given, e.g. from a larger corpus."""

    def __init__(self, config: NerRecastConfig = NerRecastConfig(), prior: Optional[beam.PCollection] = None):
        super().__init__()
        self.config = config
        self.prior = prior

    def expand(self, sentences):
        prior = self.prior if self.prior is not None else sentences | "TagPrior" >> beam.CombineGlobally(TagPriorFn())
        return sentences | "Recast" >> beam.ParDo(
            RecastFn(STAGE, partial(recast_ner, config=self.config)),
            beam.pvalue.AsSingleton(prior)).with_outputs(DEAD, SKIPPED, main="pairs")
