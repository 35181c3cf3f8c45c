"""Overlap separability: how well cheap cues alone predict a dataset's labels (a detector learns whatever separates its
training labels most cheaply, so a dataset says how much word overlap, and the other cues a rule leaves, give away).

A unit is what carries a label. Pair rows (RtePair, ClaimExample, and ArcExample at sentence level) are one unit
each; an arc row (ArcExample at arc level) gives one unit per labelled arc (an unlabelled arc is no unit). Each unit
has five cues, each oriented so that a high value reads "entailed" the way a lazy model would, and so an ROC AUC
above 0.5 is the cue working as expected and one below 0.5 the cue working inverted (both separate):
  overlap      pair: the share of the hypothesis's content word types (transforms.views.content_words) that occur
               among the premise's words (words_of: lower-cased), 1.0 for a hypothesis with none (the benchmarks'
               unigram-overlap baseline). arc: how many of the arc's head and child occur in the premise, 0, 1 or 2;
               a word occurs when the lower-cased word pieces of its token all are premise words, or its lemma is
               one (premises carry text, not lemmas, so the token's form is matched as well as its lemma).
  negation     1 when the hypothesis has no negation word (NEGATION: not, n't, no, never, ...), else 0.
  absent_name  1 when the hypothesis has no capitalised word, other than a stop word, absent from the premise's
               words (a name the premise lacks), else 0.
  length       the hypothesis's word count (the higher, the more "entailed": read the AUC's distance from 0.5).
  disfluency   the share of the hypothesis's word bigrams (consecutive lower-cased words) seen among the bigrams of
               the dataset's own premises (the corpus read), 1.0 for a hypothesis of one word: rules that splice
               sentences write bigrams no writer does.
The ROC AUC counts a tie as half; a rule / split with a single class has none (None). Each is given per rule (the
ArcExample's kind, the ClaimExample's transformation, the RtePair's phenomenon), per split and over all of them.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional

import apache_beam as beam

from entailgen.schemas.records import ENTAILED, ArcExample, ClaimExample, RtePair
from entailgen.transforms.claims.transformations import WORD, words_of
from entailgen.transforms.views import content_words

CUES = ("overlap", "negation", "absent_name", "length", "disfluency")
ALL = "all"  # the rule / split that sums the others
NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot)\b|n['’]t\b")
NAME = re.compile(r"\b[A-Z][^\W_]*")
ROUND = 4  # decimals of an AUC or share in the manifest
SEPARABLE = (ArcExample, RtePair, ClaimExample)


@dataclass(frozen=True)
class Unit:
    """One labelled unit: its rule, whether it is entailed, its cues (in CUES order), where it sits (the row id and
    the arc's index, None for a pair row) and how many of its hypothesis's bigrams the corpus lacks (a swap or splice
    writes one or two at each seam, whatever the sentence's length)."""

    rule: str
    entailed: bool
    cues: tuple
    id: str = ""
    arc: Optional[int] = None
    unseen: int = 0


def rule_of(row) -> str:
    """The rule that made a row: an ArcExample's kind, a ClaimExample's transformation (its block rows apart), an
    RtePair's phenomenon (dialogue copies apart)."""
    if isinstance(row, ArcExample):
        return row.kind
    if isinstance(row, ClaimExample):
        return row.transformation if row.block_index is None else f"{row.transformation}/block"
    return row.phenomenon if row.kind == "original" else f"{row.phenomenon}/{row.kind}"


def premise_and_hypothesis(row) -> tuple[str, str]:
    """The text a row is checked against and the text it claims."""
    return row.premise, row.claim if isinstance(row, ClaimExample) else row.hypothesis


def bigrams(text: str) -> set[str]:
    """The text's word bigrams, lower-cased, as 'a b'."""
    words = WORD.findall(text.lower())
    return {f"{a} {b}" for a, b in zip(words, words[1:])}


def overlap_share(premise_words: set[str], hypothesis: str) -> float:
    """Share of the hypothesis's content word types found among the premise's words; 1.0 when it has none."""
    claimed = content_words(hypothesis)
    return len(claimed & premise_words) / len(claimed) if claimed else 1.0


def word_present(form: str, lemma: str, premise_words: set[str]) -> bool:
    """Whether a hypothesis token occurs in the premise: all its lower-cased word pieces, or its lemma, are premise
    words (a token with no word piece, punctuation, matches by lemma alone)."""
    pieces = words_of(form)
    return bool(pieces) and pieces <= premise_words or lemma.lower() in premise_words


def row_cues(premise_words: set[str], hypothesis: str, seen: frozenset | set) -> tuple:
    """The hypothesis-wide cues after overlap: (no negation, no absent name, length, seen-bigram share)."""
    negated = NEGATION.search(hypothesis.lower()) is not None
    absent = bool(content_words(" ".join(NAME.findall(hypothesis))) - premise_words)
    grams = bigrams(hypothesis)
    fluent = len(grams & seen) / len(grams) if grams else 1.0
    return (0 if negated else 1, 0 if absent else 1, len(WORD.findall(hypothesis)), round(fluent, 6))


def units(row, seen: frozenset | set = frozenset()) -> list[Unit]:
    """A row's labelled units with their cues (module docstring); seen: the corpus premises' bigrams."""
    premise, hypothesis = premise_and_hypothesis(row)
    premise_words = words_of(premise)
    rest = row_cues(premise_words, hypothesis, seen)
    rule, unseen = rule_of(row), len(bigrams(hypothesis) - seen)
    if isinstance(row, ArcExample) and row.label is None:
        tokens = row.hypothesis_tokens

        def present(index: int, lemma: str) -> bool:
            form = tokens[index] if 0 <= index < len(tokens) else ""
            return word_present(form, lemma, premise_words)

        return [Unit(rule, a.entailed == 1, (int(present(a.head, a.head_lemma)) + int(present(a.child, a.child_lemma)),
                                             *rest), row.id, i, unseen)
                for i, a in enumerate(row.arcs) if a.entailed is not None]
    if isinstance(row, ArcExample):
        entailed = row.label == 1
    else:
        entailed = (row.entailment if isinstance(row, ClaimExample) else row.label) == ENTAILED
    return [Unit(rule, entailed, (round(overlap_share(premise_words, hypothesis), 6), *rest), row.id, None, unseen)]


def roc_auc(positive: Counter, negative: Counter) -> Optional[float]:
    """ROC AUC of scores for the positive class from per-score counts, a tie counting half; None for one class."""
    n_pos, n_neg = sum(positive.values()), sum(negative.values())
    if not n_pos or not n_neg:
        return None
    below, wins = 0, 0.0
    for score in sorted(set(positive) | set(negative)):
        wins += positive[score] * (below + negative[score] / 2)
        below += negative[score]
    return wins / (n_pos * n_neg)


def histogram(rows: Iterable, seen: frozenset | set = frozenset(), split_of=lambda row: row.split) -> Counter:
    """(rule, split, cue, score, entailed) -> units, the whole measure's state (a sum, so it merges in any order)."""
    counts: Counter = Counter()
    for row in rows:
        for unit in units(row, seen):
            for cue, score in zip(CUES, unit.cues):
                counts[(unit.rule, split_of(row) or "", cue, score, unit.entailed)] += 1
    return counts


def separability(counts: Counter, unit: str) -> dict:
    """The manifest's separability block from a histogram: per rule and split (and over all of each) the units,
    label balance and each cue's ROC AUC."""
    cells: dict = {}
    for (rule, split, cue, score, entailed), n in counts.items():
        for r in (rule, ALL):
            for s in (split, ALL):
                cell = cells.setdefault((r, s), {c: (Counter(), Counter()) for c in CUES})
                cell[cue][0 if entailed else 1][score] += n
    rules: dict = {}
    for (rule, split), cell in sorted(cells.items()):
        positive, negative = (sum(cell[CUES[0]][i].values()) for i in (0, 1))
        aucs = {cue: roc_auc(*cell[cue]) for cue in CUES}
        rules.setdefault(rule, {})[split] = {
            "units": positive + negative, "positive": positive, "negative": negative,
            "share_positive": round(positive / (positive + negative), ROUND),
            "auc": {cue: None if v is None else round(v, ROUND) for cue, v in aucs.items()}}
    return {"unit": unit, "cues": list(CUES), "rules": rules}


def unit_name(row) -> str:
    """What a row's units are: arcs, or pairs."""
    return "arc" if isinstance(row, ArcExample) and row.label is None else "pair"


class _Histogram(beam.CombineFn):
    """The separability histogram over split rows, the corpus bigrams a side input; out: the manifest's block."""

    def create_accumulator(self):
        return Counter(), set()

    def add_input(self, acc, row_and_units):
        units_of, name = row_and_units
        counts, names = acc
        counts.update(units_of)
        names.add(name)
        return acc

    def merge_accumulators(self, accumulators):
        counts, names = Counter(), set()
        for c, n in accumulators:
            counts.update(c)
            names |= n
        return counts, names

    def extract_output(self, acc):
        counts, names = acc
        return separability(counts, "+".join(sorted(names)) or "none")


class SeenBigrams:
    """The corpus bigrams (a side input list) made a set once per bundle, not once per row."""

    def __init__(self):
        self._from, self._seen = None, frozenset()

    def __call__(self, seen_list) -> frozenset:
        if self._from is not seen_list:
            self._from, self._seen = seen_list, frozenset(seen_list)
        return self._seen


class PremiseBigrams(beam.PTransform):
    """Rows -> the distinct word bigrams of their premises: the corpus a hypothesis's disfluency is read against."""

    def expand(self, rows):
        return (rows | "PremiseBigrams" >> beam.FlatMap(lambda r: bigrams(premise_and_hypothesis(r)[0]))
                | "Distinct" >> beam.Distinct())


class _RowHistogram(beam.DoFn):
    """One row's histogram against the corpus bigrams (a side input)."""

    def __init__(self):
        self.seen = SeenBigrams()

    def process(self, row, seen_list):
        yield histogram([row], self.seen(seen_list)), unit_name(row)


class MeasureSeparability(beam.PTransform):
    """Split rows (a tuple of branches) -> one value: the manifest's separability block."""

    def expand(self, branches):
        rows = branches | "Rows" >> beam.Flatten()
        seen = rows | "Corpus" >> PremiseBigrams()
        return (rows | "Units" >> beam.ParDo(_RowHistogram(), beam.pvalue.AsList(seen))
                | "Block" >> beam.CombineGlobally(_Histogram()))
