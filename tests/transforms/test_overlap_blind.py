"""Overlap-blind sampling worked by hand: the bins (unseen bigrams among them), the counts kept within each (equal
classes, the lowest seeded hashes), arcs left out unlabelled with their rows kept, pair rows left out as Skipped,
every one counted by reason."""
import dataclasses

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, ArcExample, LabelledArc, RtePair, Skipped
from entailgen.transforms.overlap_blind import (ARCS_LEFT_OUT, COUNTS, ROWS_LEFT_OUT, SKIPPED, OverlapBlind,
                                                OverlapBlindConfig, apply_choices, bin_of, choose, keyed_units)
from entailgen.transforms.separability import bigrams, histogram, separability, units

PREMISE = "Anna fed the cat and the dog in Leeds."
SEEN = bigrams(PREMISE)  # anna fed, fed the, the cat, cat and, and the, the dog, dog in, in leeds: what the stage reads


def pair(i, hypothesis, label, phenomenon="ner"):
    return RtePair(f"p{i}", PREMISE, hypothesis, label, phenomenon, "t", "test", f"s{i}")


# overlap deciles: 9 (share 1), 5 (1/2), 0 (0), 0, 6 (2/3); p5 negates, so it is a bin of its own; every bigram of
# p0 is in the premise, one of each other (anna slept, tom slept, bob sang, fed birds, tom fed), four of p5's
PAIRS = [pair(0, "Anna fed the dog.", ENTAILED), pair(1, "Anna slept.", ENTAILED), pair(2, "Tom slept.", NOT_ENTAILED),
         pair(3, "Bob sang.", NOT_ENTAILED), pair(4, "Anna fed birds.", NOT_ENTAILED),
         pair(5, "Anna did not feed the dog.", NOT_ENTAILED), pair(6, "Tom fed the dog.", ENTAILED),
         pair(7, "Tom fed the cat.", NOT_ENTAILED)]


def test_a_pair_bins_by_overlap_decile_negation_and_unseen_bigrams():
    assert [bin_of(units(p, SEEN)[0]) for p in PAIRS] == [
        ("ner", 9, False, 0), ("ner", 5, False, 1), ("ner", 0, False, 1), ("ner", 0, False, 1),
        ("ner", 6, False, 1), ("ner", 6, True, 3), ("ner", 6, False, 1), ("ner", 6, False, 1)]


def test_unseen_bigrams_are_counted_against_the_premises_up_to_three_and_more():
    """The share of bigrams seen would put "Tom fed the dog." (2/3) above "Anna did not feed the dog." (1/5) by
    length as much as by seams; the count reads the seams: 1 against 4."""
    hypotheses = ["Anna fed the dog.", "Tom fed the dog.", "Dog the in Leeds.", "Dog the fed Anna.",
                  "Anna did not feed the dog."]
    found = [units(pair(i, h, ENTAILED), SEEN)[0] for i, h in enumerate(hypotheses)]
    assert [u.unseen for u in found] == [0, 1, 2, 3, 4] and [bin_of(u)[3] for u in found] == [0, 1, 2, 3, 3]


def test_an_arc_bins_by_its_count_of_head_and_child_in_the_premise():
    row = ArcExample("a", PREMISE, "Tom fed the cat", ["Tom", "fed", "the", "cat"],
                     [LabelledArc(1, 0, "nsubj", "feed", "Tom", 0), LabelledArc(1, 3, "dobj", "feed", "cat", 1),
                      LabelledArc(3, 2, "det", "cat", "the", None)], "bottom", "gen", "test", "s")
    assert keyed_units(row, seen=SEEN) == [(("bottom", 1, False, 1), ("a", 0, False)),  # "tom fed" unseen
                                           (("bottom", 2, False, 1), ("a", 1, True))]


def test_within_a_bin_the_larger_class_keeps_as_many_as_the_smaller_lowest_hash_first():
    members = [("r1", 0, True), ("r2", 0, True), ("r3", 0, True), ("r4", None, False)]
    chosen = choose(("k", 2, False, 1), members, seed=3)
    kept_positive = min(["r1", "r2", "r3"], key=lambda r: unit_hash(3, r, 0))
    assert sorted(chosen) == sorted(
        [(r, (0, r == kept_positive, "k:overlap2:unseen1:entailed")) for r in ("r1", "r2", "r3")]
        + [("r4", (None, True, "k:overlap2:unseen1:not_entailed"))])
    assert [c for c in choose(("k", 2, True, 1), members[:3], seed=3) if c[1][1]] == []  # one class: none kept
    assert choose(("k", 2, True, 3), members[:3], seed=3)[0][1][2] == "k:overlap2+negation:unseen3+:entailed"


def test_pair_rows_left_out_are_skipped_and_counted():
    kept, left_out = _blind(PAIRS, SEEN)
    # bins: decile 9 {p0+}, 5 {p1+}, 0 {p2-, p3-}, 6 with one unseen bigram {p4-, p6+, p7-}, 6+negation {p5-}: of 8
    # rows only one pair in decile 6 balances, so 6 are left out
    assert sum(not isinstance(r, Skipped) for r in kept) == 2 and len(left_out) == 6
    lower = min(("p4", "p7"), key=lambda r: unit_hash(0, r, -1))  # the negative of the lower seeded hash
    assert sorted(r.id for r in kept if isinstance(r, RtePair)) == sorted(["p6", lower])
    assert sorted(w for _, w in left_out) == [
        "ner:overlap0:unseen1:not_entailed", "ner:overlap0:unseen1:not_entailed", "ner:overlap5:unseen1:entailed",
        "ner:overlap6+negation:unseen3+:not_entailed", "ner:overlap6:unseen1:not_entailed",
        "ner:overlap9:unseen0:entailed"]
    assert {c for c, _ in left_out} == {ROWS_LEFT_OUT}
    assert all(s.stage == "overlap_blind" for s in kept if isinstance(s, Skipped))


def _blind(rows, seen):
    """The stage's pure core over pair rows of distinct ids: (rows out, (counter, reason) per row left out)."""
    bins = {}
    for row in rows:
        for key, member in keyed_units(row, seen=seen):
            bins.setdefault(key, []).append(member)
    choices = [c for key, members in bins.items() for c in choose(key, members, seed=0)]
    kept, left_out = [], []
    for row in rows:
        out, why = apply_choices([row], [c for i, c in choices if i == row.id])
        kept += out
        left_out += why
    return kept, left_out


# one rule, every content word in the premise (overlap decile 9), no negation: labels that follow fluency, every
# bigram seen (disfluency share 1.0) for three entailed and one not, none of three seen (0.0) for one entailed and two
# not
FOLLOW_FLUENCY = [pair(20, "Anna fed the dog.", ENTAILED), pair(21, "Anna fed the cat.", ENTAILED),
                  pair(22, "The cat and the dog.", ENTAILED), pair(23, "Anna fed the dog in Leeds.", NOT_ENTAILED),
                  pair(24, "Dog the fed Anna.", ENTAILED), pair(25, "Cat the fed Anna.", NOT_ENTAILED),
                  pair(26, "Leeds in dog the.", NOT_ENTAILED)]


def test_labels_that_follow_fluency_are_balanced_within_each_count_of_unseen_bigrams():
    """Overlap and negation alone put all seven in one bin (4 entailed against 3: six kept, disfluency still at 0.67
    or 0.83). By unseen bigrams: 0 keeps one of its 3 entailed and its one not-entailed (p23), 3+ its one entailed
    (p24) and one of its 2 not-entailed: 4 kept, 3 left out, and disfluency then predicts nothing (ROC AUC 0.5)."""
    assert [bin_of(u) for r in FOLLOW_FLUENCY for u in units(r, SEEN)] == [("ner", 9, False, 0)] * 4 + [
        ("ner", 9, False, 3)] * 3
    kept, left_out = _blind(FOLLOW_FLUENCY, SEEN)
    lowest = [min(ids, key=lambda r: unit_hash(0, r, -1)) for ids in (("p20", "p21", "p22"), ("p25", "p26"))]
    assert sorted(r.id for r in kept if not isinstance(r, Skipped)) == sorted(["p23", "p24", *lowest])
    assert sorted(left_out) == [(ROWS_LEFT_OUT, "ner:overlap9:unseen0:entailed")] * 2 + [
        (ROWS_LEFT_OUT, "ner:overlap9:unseen3+:not_entailed")]
    block = separability(histogram([r for r in kept if not isinstance(r, Skipped)], SEEN), "pair")
    every = block["rules"]["all"]["all"]
    assert (every["positive"], every["negative"], every["auc"]["disfluency"]) == (2, 2, 0.5)
    with TestPipeline() as p:  # the stage gathers the premises' bigrams itself
        out = p | beam.Create(FOLLOW_FLUENCY) | OverlapBlind(OverlapBlindConfig(seed=0))
        assert_that(out[COUNTS], equal_to([((ROWS_LEFT_OUT, "ner:overlap9:unseen0:entailed"), 2),
                                           ((ROWS_LEFT_OUT, "ner:overlap9:unseen3+:not_entailed"), 1)]))


ARC_ROW = ArcExample("a", "Anna fed the dog.", "Anna fed the cat", ["Anna", "fed", "the", "cat"],
                     [LabelledArc(1, 0, "nsubj", "feed", "Anna", 1), LabelledArc(1, 3, "dobj", "feed", "cat", 0),
                      LabelledArc(1, 2, "dobj", "feed", "the", 1)], "bottom", "gen", "test", "s")


def test_an_arc_left_out_becomes_unlabelled_and_its_row_stays():
    rows, left_out = apply_choices([ARC_ROW], [(0, True, "x"), (1, True, "y"),
                                               (2, False, "bottom:overlap2:unseen0:entailed")])
    assert rows == [dataclasses.replace(ARC_ROW, arcs=[*ARC_ROW.arcs[:2],
                                                       dataclasses.replace(ARC_ROW.arcs[2], entailed=None)])]
    assert left_out == [(ARCS_LEFT_OUT, "bottom:overlap2:unseen0:entailed")]


def test_equal_rows_of_one_id_take_one_choice_each_kept_first():
    rows, left_out = apply_choices([ARC_ROW, ARC_ROW], [(0, False, "z"), (0, True, "z")])
    assert [r.arcs[0].entailed for r in rows] == [1, None] and left_out == [(ARCS_LEFT_OUT, "z")]


def test_the_ptransform_balances_every_bin_and_counts_what_it_left_out():
    """The stage reads unseen bigrams against the premises' own (SEEN), so the pairs' bins are those above. Arc bins
    (every bigram of "Anna fed the cat" seen): (bottom, 2): Anna 1 and "the" 1 (both words in the premise) against
    none; (bottom, 1): cat 0 alone. So all three arcs are left out; the row stays with its arcs unlabelled."""
    with TestPipeline() as p:
        out = p | beam.Create(PAIRS + [ARC_ROW]) | OverlapBlind(OverlapBlindConfig(seed=0))
        assert_that(out["rows"] | "Ids" >> beam.Map(lambda r: (r.id, r.label if isinstance(r, RtePair) else
                                                             tuple(a.entailed for a in r.arcs))),
                    equal_to([("a", (None, None, None)), ("p6", ENTAILED),
                              (min(("p4", "p7"), key=lambda r: unit_hash(0, r, -1)), NOT_ENTAILED)]), label="rows")
        assert_that(out[SKIPPED] | "Reasons" >> beam.Map(lambda s: s.reason), equal_to([
            "ner:overlap0:unseen1:not_entailed", "ner:overlap0:unseen1:not_entailed",
            "ner:overlap5:unseen1:entailed", "ner:overlap6+negation:unseen3+:not_entailed",
            "ner:overlap6:unseen1:not_entailed", "ner:overlap9:unseen0:entailed"]), label="skipped")
        assert_that(out[COUNTS], equal_to([
            ((ROWS_LEFT_OUT, "ner:overlap0:unseen1:not_entailed"), 2),
            ((ROWS_LEFT_OUT, "ner:overlap5:unseen1:entailed"), 1),
            ((ROWS_LEFT_OUT, "ner:overlap6+negation:unseen3+:not_entailed"), 1),
            ((ROWS_LEFT_OUT, "ner:overlap6:unseen1:not_entailed"), 1),
            ((ROWS_LEFT_OUT, "ner:overlap9:unseen0:entailed"), 1),
            ((ARCS_LEFT_OUT, "bottom:overlap2:unseen0:entailed"), 2),
            ((ARCS_LEFT_OUT, "bottom:overlap1:unseen0:not_entailed"), 1)]), label="counts")


def test_rules_of_one_label_are_pooled_and_balanced_against_each_other():
    """FactCC-like: "sampled" makes only entailed rows, "swap" only not-entailed ones, all of overlap share 1 with
    every bigram in the premise: the pool keeps one of each, the sampled row of the lower seeded hash."""
    rows = [pair(10, "Anna fed the dog.", ENTAILED, "sampled"), pair(11, "Anna fed the cat.", ENTAILED, "sampled"),
            pair(12, "Anna fed the cat and the dog.", NOT_ENTAILED, "swap")]
    assert bin_of(units(rows[0], SEEN)[0], mixed={"ner"}) == ("one_label_rules", 9, False, 0)
    assert bin_of(units(rows[0], SEEN)[0], mixed={"sampled"}) == ("sampled", 9, False, 0)
    kept_sampled = min(("p10", "p11"), key=lambda r: unit_hash(0, r, -1))
    with TestPipeline() as p:
        out = p | beam.Create(rows) | OverlapBlind(OverlapBlindConfig(seed=0))
        assert_that(out["rows"] | beam.Map(lambda r: r.id), equal_to([kept_sampled, "p12"]), label="rows")
        assert_that(out[COUNTS], equal_to([((ROWS_LEFT_OUT, "one_label_rules:overlap9:unseen0:entailed"), 1)]),
                    label="counts")
