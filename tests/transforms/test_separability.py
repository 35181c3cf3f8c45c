"""Overlap separability worked by hand: five pair rows whose overlap shares and labels give 5/6, arc rows whose
head / child presence gives 5/6, each other cue's AUC, a rule of one class, and the Markdown table the card takes."""
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
import pytest

from entailgen.dataset.report.separability import separability_table
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, ArcExample, LabelledArc, RtePair
from entailgen.transforms.separability import (MeasureSeparability, bigrams, histogram, roc_auc, separability, units,
                                               word_present)
from collections import Counter

PREMISE = "Anna fed the cat and the dog in Leeds."
# (hypothesis, label): overlap shares 1, 1/2 (entailed) and 0, 0, 2/3 (not): the 1 beats all three, the 1/2 beats
# the two 0s and loses to 2/3, so 5 of 6 pairs are ordered right.
PAIRS = [("Anna fed the dog.", ENTAILED), ("Anna slept.", ENTAILED), ("Tom slept.", NOT_ENTAILED),
         ("Bob sang.", NOT_ENTAILED), ("Anna fed birds.", NOT_ENTAILED)]


def pair(hypothesis, label, i, phenomenon="ner", split="train"):
    return RtePair(f"p{i}", PREMISE, hypothesis, label, phenomenon, "t", "test", f"s{i}", split=split)


ROWS = [pair(h, label, i) for i, (h, label) in enumerate(PAIRS)]
SEEN = bigrams(PREMISE)


def test_five_pair_rows_give_the_aucs_worked_by_hand():
    block = separability(histogram(ROWS, SEEN), "pair")
    cell = block["rules"]["ner"]["train"]
    assert (cell["units"], cell["positive"], cell["negative"], cell["share_positive"]) == (5, 2, 3, 0.4)
    assert cell["auc"] == {
        "overlap": round(5 / 6, 4),
        "negation": 0.5,  # no hypothesis negates
        "absent_name": round(5 / 6, 4),  # Tom and Bob are absent (0), the rest 1: each positive ties one 1
        "length": round(4 / 6, 4),  # positives 4 and 2 words, negatives 2, 2, 3
        "disfluency": round(4 / 6, 4),  # seen bigram shares: positives 1 and 0, negatives 0, 0, 1/2
    }
    assert block["rules"]["all"]["all"] == cell and block["rules"]["ner"]["all"] == cell


def test_overlap_shares_are_the_hypothesis_content_words_in_the_premise():
    assert [units(r)[0].cues[0] for r in ROWS] == [1.0, 0.5, 0.0, 0.0, round(2 / 3, 6)]


def test_negation_is_read_from_not_and_nt():
    rows = [pair("Anna did not feed the dog.", NOT_ENTAILED, 0), pair("Anna didn't sleep.", NOT_ENTAILED, 1),
            pair("Anna fed the dog.", ENTAILED, 2), pair("Nothing was fed.", NOT_ENTAILED, 3)]
    assert [units(r)[0].cues[1] for r in rows] == [0, 0, 1, 0]
    assert separability(histogram(rows), "pair")["rules"]["ner"]["train"]["auc"]["negation"] == 1.0


def test_a_rule_of_one_class_has_no_auc_and_says_its_balance():
    rows = ROWS + [pair("Anna fed the cat.", ENTAILED, 9, phenomenon="sentiment", split="dev")]
    rules = separability(histogram(rows, SEEN), "pair")["rules"]
    assert rules["sentiment"]["dev"] == {"units": 1, "positive": 1, "negative": 0, "share_positive": 1.0,
                                         "auc": dict.fromkeys(("overlap", "negation", "absent_name", "length",
                                                               "disfluency"))}
    assert rules["all"]["all"]["units"] == 6 and rules["all"]["dev"]["positive"] == 1


def test_roc_auc_counts_ties_half():
    assert roc_auc(Counter({1: 1}), Counter({1: 1})) == 0.5
    assert roc_auc(Counter({2: 1, 0: 1}), Counter({1: 2})) == 0.5
    assert roc_auc(Counter({1: 2}), Counter()) is None


def arc_row(i, tokens, arcs, premise="Anna fed the dog."):
    """An arc row: arcs as (head, child, rel, head lemma, child lemma, label)."""
    return ArcExample(f"a{i}", premise, " ".join(tokens), tokens, [LabelledArc(*a) for a in arcs],
                      "bottom", "gen", "test", f"s{i}", split="train")


ARC_ROWS = [
    # fed and Anna in the premise (2, entailed); fed in, cat not (1, not entailed)
    arc_row(0, ["Anna", "fed", "the", "cat"], [(1, 0, "nsubj", "feed", "Anna", 1), (1, 3, "dobj", "feed", "cat", 0)]),
    # "dogs" is no premise word but its lemma "dog" is (2, entailed); Tom is absent (1, not); birds unlabelled
    arc_row(1, ["Tom", "fed", "dogs", "birds"], [(1, 2, "dobj", "feed", "dog", 1), (1, 0, "nsubj", "feed", "Tom", 0),
                                                  (1, 3, "dobj", "feed", "bird", None)]),
    # a role swap of the premise's own words (2, not entailed)
    arc_row(2, ["Dog", "fed", "Anna"], [(1, 0, "nsubj", "feed", "dog", 0)]),
]


def test_arc_rows_give_one_unit_per_labelled_arc_scored_by_head_and_child_presence():
    found = [(u.id, u.arc, u.entailed, u.cues[0]) for r in ARC_ROWS for u in units(r)]
    assert found == [("a0", 0, True, 2), ("a0", 1, False, 1), ("a1", 0, True, 2), ("a1", 1, False, 1),
                     ("a2", 0, False, 2)]
    cell = separability(histogram(ARC_ROWS), "arc")["rules"]["bottom"]["train"]
    assert (cell["positive"], cell["negative"]) == (2, 3)
    assert cell["auc"]["overlap"] == round(5 / 6, 4)  # each 2 beats the two 1s and ties the swap's 2


def test_a_token_is_present_by_its_word_pieces_or_its_lemma():
    words = {"anna", "fed", "the", "dog", "u", "s"}
    assert word_present("U.S.", "U.S.", words)
    assert word_present("dogs", "dog", words) and not word_present("dogs", "dogs", words)
    assert not word_present(".", ".", words)


def test_the_ptransform_measures_the_split_rows_with_the_corpus_bigrams():
    with TestPipeline() as p:
        block = (p | __import__("apache_beam").Create(ROWS),) | MeasureSeparability()
        assert_that(block, equal_to([separability(histogram(ROWS, SEEN), "pair")]))


def test_the_block_renders_as_a_markdown_table():
    """The all row adds "Anna fed the cat." (4 words, overlap 1, bigrams all seen): length and disfluency 7/9."""
    block = separability(histogram(ROWS + [pair("Anna fed the cat.", ENTAILED, 9, phenomenon="sentiment")], SEEN),
                         "pair")
    assert separability_table(block) == (
        "| rule | pairs | positive | overlap AUC | negation AUC | absent name AUC | length AUC | disfluency AUC |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        "| all | 6 | 50% | 0.89 | 0.50 | 0.83 | 0.78 | 0.78 |\n"
        "| ner | 5 | 40% | 0.83 | 0.50 | 0.83 | 0.67 | 0.67 |\n"
        "| sentiment | 1 | 100% | — (one class) | — (one class) | — (one class) | — (one class) | — (one class) |\n")


@pytest.mark.parametrize("order, cuts", [((0, 1, 2, 3, 4), (5,)), ((4, 3, 2, 1, 0), (2, 4)), ((2, 0, 4, 1, 3), (1, 3))])
def test_any_row_order_and_bundle_cut_merged_in_any_order_gives_the_block_worked_by_hand(order, cuts):
    """The block is a sum of per-row histograms: arrival order, bundle boundaries and merge order cannot move it."""
    from entailgen.transforms.separability import _Histogram, unit_name

    fn, rows = _Histogram(), [ROWS[i] for i in order]
    accumulators = []
    for start, end in zip((0, *cuts), (*cuts, len(rows))):
        accumulator = fn.create_accumulator()
        for row in rows[start:end]:
            accumulator = fn.add_input(accumulator, (histogram([row], SEEN), unit_name(row)))
        accumulators.append(accumulator)
    cell = fn.extract_output(fn.merge_accumulators(accumulators[::-1]))["rules"]["ner"]["train"]
    assert cell == {"units": 5, "positive": 2, "negative": 3, "share_positive": 0.4,
                    "auc": {"overlap": round(5 / 6, 4), "negation": 0.5, "absent_name": round(5 / 6, 4),
                            "length": round(4 / 6, 4), "disfluency": round(4 / 6, 4)}}
