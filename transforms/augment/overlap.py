"""Nearest overlap (Goyal & Durrett 2020 §5.3): pair x with the corpus sentence x' sharing the most unigrams; x' is 0.

Premise x, hypothesis x' (another sentence, not x's own text), every arc of x' labelled 0: a fluent, topically close
hypothesis the premise does not support. Comparing all pairs is quadratic, so candidates come from blocks: each
sentence joins the blocks of its m rarest tokens by document frequency (ignoring tokens seen once, which pair nothing,
and tokens in more than max_block sentences, which would make a block too big to compare). Work per sentence is then
at most m * max_block comparisons, so the cost grows about linearly with the corpus. The price: a sentence whose best
partner shares none of its m rarest tokens gets the best partner its blocks hold instead, a close but not always the
closest one. Ties go to the smaller hypothesis id, so the pairing is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

import apache_beam as beam

from entailgen.schemas.records import ArcExample, LabelledArc, ParsedSentence
from entailgen.transforms.augment.common import arc_example

KIND = "overlap"


@dataclass(frozen=True)
class OverlapOptions:
    """How many rare tokens key each sentence's blocks, and the most sentences a block may hold."""

    blocking_keys: int = 8
    max_block: int = 100


@dataclass(frozen=True)
class Member:
    """What blocking needs of a sentence: its id, unigram types, normalised text, and what the example cites."""

    id: str
    unigrams: tuple[str, ...]
    text_key: str
    text: str
    source: str
    source_id: str


@dataclass(frozen=True)
class Candidate:
    """The best hypothesis found so far for one premise, with their unigram overlap."""

    premise_id: str
    premise: str
    source: str
    source_id: str
    hypothesis_id: str
    overlap: int


def unigrams(sentence: ParsedSentence) -> tuple[str, ...]:
    """The sentence's word types, lower-cased, punctuation left out, sorted."""
    return tuple(sorted({t.text.lower() for t in sentence.tokens
                         if t.pos != "PUNCT" and any(c.isalnum() for c in t.text)}))


def member(sentence: ParsedSentence) -> Member:
    """The blocking view of a sentence."""
    return Member(sentence.id, unigrams(sentence), " ".join(sentence.text.lower().split()), sentence.text,
                  sentence.source, sentence.source_id)


def blocking_keys(m: Member, df: Mapping[str, int], options: OverlapOptions = OverlapOptions()) -> list[str]:
    """The member's m rarest tokens (ties by token) among those in 2..max_block sentences."""
    eligible = [t for t in m.unigrams if 2 <= df.get(t, 0) <= options.max_block]
    return sorted(eligible, key=lambda t: (df[t], t))[:options.blocking_keys]


def overlap(a: Member, b: Member) -> int:
    """Shared unigram types of two sentences."""
    return len(set(a.unigrams).intersection(b.unigrams))


def rank(c: Candidate) -> tuple[int, str]:
    """Sort key of candidates, best first: most overlap, then smallest hypothesis id."""
    return (-c.overlap, c.hypothesis_id)


def best_candidate(candidates: Iterable[Candidate]) -> Candidate:
    """The best of some candidates for one premise; associative, so it serves as a CombineFn."""
    return min(candidates, key=rank)


def best_in_block(members: Iterable[Member]) -> Iterator[tuple[str, Candidate]]:
    """(premise id, best candidate inside this block) for every member that has a partner with a different text."""
    unique = sorted({m.id: m for m in members}.values(), key=lambda m: m.id)
    for a in unique:
        found = [Candidate(a.id, a.text, a.source, a.source_id, b.id, overlap(a, b))
                 for b in unique if b.id != a.id and b.text_key != a.text_key]
        if found:
            yield a.id, best_candidate(found)


def nearest_by_brute_force(members: list[Member]) -> dict[str, Candidate]:
    """The exact nearest-overlap partner of every member by comparing all pairs: the reference blocking approximates."""
    return dict(best_in_block(members))


def overlap_example(candidate: Candidate, hypothesis: ParsedSentence) -> ArcExample:
    """The example (x, x'): every arc of the nearest-overlap sentence x' labelled 0."""
    arcs = [LabelledArc.of(a, 0) for a in hypothesis.arcs]
    return arc_example(candidate.premise, hypothesis, arcs, KIND, candidate.source, candidate.source_id)


class DocumentFrequency(beam.PTransform):
    """Member -> (token, number of sentences containing it)."""

    def expand(self, members):
        return (members
                | "Tokens" >> beam.FlatMap(lambda m: ((t, 1) for t in m.unigrams))
                | "Count" >> beam.CombinePerKey(sum))


class RareTokenBlocks(beam.PTransform):
    """Member -> (rare token, members keyed by it): the candidate sets nearest overlap searches."""

    def __init__(self, options: OverlapOptions = OverlapOptions()):
        super().__init__()
        self.options = options

    def expand(self, members):
        df = members | "DocumentFrequency" >> DocumentFrequency()
        return (members
                | "Key" >> beam.FlatMap(lambda m, df, o: ((k, m) for k in blocking_keys(m, df, o)),
                                        df=beam.pvalue.AsDict(df), o=self.options)
                | "Block" >> beam.GroupByKey())


class _JoinHypothesis(beam.DoFn):
    """Build the examples of the premises that chose this hypothesis sentence."""

    def __init__(self):
        self.made = beam.metrics.Metrics.counter("entailgen", "overlap_examples")

    def process(self, joined):
        _, groups = joined
        hypotheses = list(groups["hypothesis"])
        for candidate in groups["chosen_by"]:
            self.made.inc()
            yield overlap_example(candidate, hypotheses[0])


class NearestOverlap(beam.PTransform):
    """ParsedSentence -> overlap ArcExample: each sentence with its nearest-overlap corpus sentence, all arcs 0."""

    def __init__(self, options: OverlapOptions = OverlapOptions()):
        super().__init__()
        self.options = options

    def expand(self, sentences):
        best = (sentences
                | "Member" >> beam.Map(member)
                | "Blocks" >> RareTokenBlocks(self.options)
                | "BestInBlock" >> beam.FlatMap(lambda block: best_in_block(block[1]))
                | "Best" >> beam.CombinePerKey(best_candidate))
        return ({"hypothesis": sentences | "ById" >> beam.Map(lambda s: (s.id, s)),
                 "chosen_by": best | "ByHypothesis" >> beam.Map(lambda kv: (kv[1].hypothesis_id, kv[1]))}
                | "Join" >> beam.CoGroupByKey()
                | "Examples" >> beam.ParDo(_JoinHypothesis()))
