"""DAE labelling rules (Goyal & Durrett 2020 §4) on hand-built parses and on the paper's Figure 3, plus the stats."""
import dataclasses

import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
import apache_beam as beam

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import DeadLetter, ParsedSentence, Skipped, Token
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.generate import ROLE_CANDIDATE, Candidate
from entailgen.transforms.label import (ArcLabelStats, ArcTally, LabelArcs, LabelConfig, ParsedCandidate, arc_tally,
                                        label_arcs, label_sentences, unpack_group)


def sentence(*rows, role="text", source_id="s1"):
    """A hand-parsed sentence from (word, head, dep) rows; lemmas are the lowercased words."""
    tokens = [Token(w, w.lower(), "X", "X", "O", h, d) for w, h, d in rows]
    text = " ".join(w for w, _, _ in rows)
    return ParsedSentence(content_id(text, "hand"), text, tokens, extract_arcs(tokens), "hand", "test", source_id, role)


def svo(subject, verb, obj, role=ROLE_CANDIDATE):
    """'subject verb object' with nsubj and dobj arcs."""
    return sentence((subject, 1, "nsubj"), (verb, -1, "ROOT"), (obj, 1, "dobj"), role=role)


X = svo("Alice", "bought", "apples", role="source")
GOLD = svo("Alice", "purchased", "apples", role="gold")


def cand(parse, rank, score=None):
    return ParsedCandidate(Candidate("s1", parse.text, rank, -0.1 * rank if score is None else score, "gen"), parse)


def labels(example):
    """{arc key: label} of an example."""
    return {a.key: a.entailed for a in example.arcs}


def by_kind(examples):
    out = {}
    for e in examples:
        out.setdefault(e.kind, []).append(e)
    return out


def test_gold_arcs_are_all_entailed():
    (gold,) = label_arcs(X, GOLD, [])
    assert (gold.kind, gold.premise, gold.hypothesis) == ("gold", "Alice bought apples", "Alice purchased apples")
    assert labels(gold) == {("purchased", "alice", "nsubj"): 1, ("purchased", "apples", "dobj"): 1}


def test_top1_keeps_only_its_arcs_in_source_or_gold_labelled_entailed():
    top = by_kind(label_arcs(X, GOLD, [cand(svo("Alice", "bought", "pears"), 1)]))["top1"][0]
    assert labels(top) == {("bought", "alice", "nsubj"): 1}  # bought->pears is in neither: left out
    assert (top.beam_rank, top.beam_score, top.generator) == (1, -0.1, "gen")


def test_bottom_arcs_entailed_unlabelled_or_not():
    beam = [cand(svo("Alice", "bought", "pears"), 1), cand(svo("Bob", "bought", "pears"), 2),
            cand(svo("Bob", "purchased", "apples"), 3)]
    bottom = by_kind(label_arcs(X, GOLD, beam))["bottom"]
    assert [labels(e) for e in bottom] == [
        {("bought", "bob", "nsubj"): 0, ("bought", "pears", "dobj"): None},  # bought->pears only in d(h1)
        {("purchased", "bob", "nsubj"): 0, ("purchased", "apples", "dobj"): 1},  # purchased->apples is in d(h*)
    ]


def test_bottom_is_the_last_three_of_a_full_beam():
    beam = [cand(svo(f"P{r}", "sold", "pears"), r) for r in range(10, 0, -1)]  # given worst first
    examples = by_kind(label_arcs(X, GOLD, beam))
    assert "top1" not in examples  # none of h1's arcs is in d(x) or d(h*), so h1 has nothing to label
    assert [e.beam_rank for e in examples["bottom"]] == [8, 9, 10]
    assert [labels(e) for e in examples["bottom"]] == [
        {("sold", f"p{r}", "nsubj"): 0, ("sold", "pears", "dobj"): None} for r in (8, 9, 10)]


def test_short_beam_labels_what_there_is_after_h1():
    h1, h2 = cand(svo("Alice", "bought", "pears"), 1), cand(svo("Carol", "sold", "pears"), 2)
    assert [e.beam_rank for e in label_arcs(X, GOLD, [h1, h2])] == [None, 1, 2]
    assert [e.kind for e in label_arcs(X, GOLD, [h1])] == ["gold", "top1"]


def test_ranks_beyond_k_are_ignored():
    beam = [cand(svo("Alice", "bought", "pears"), 1), cand(svo("Carol", "sold", "pears"), 5)]
    assert [e.beam_rank for e in label_arcs(X, GOLD, beam, LabelConfig(k=4))] == [None, 1]


def test_duplicate_hypotheses_are_labelled_once_at_their_best_rank():
    bob = svo("Bob", "bought", "pears")
    beam = [cand(svo("Alice", "bought", "pears"), 1), cand(bob, 2), cand(bob, 3)]
    assert [(e.kind, e.beam_rank) for e in label_arcs(X, GOLD, beam)] == [("gold", None), ("top1", 1), ("bottom", 2)]


def test_copies_of_source_and_gold_come_out_entailed():
    beam = [cand(svo("Alice", "bought", "apples"), 1), cand(svo("Alice", "bought", "apples"), 2),
            cand(svo("Alice", "purchased", "apples"), 3)]
    examples = label_arcs(X, GOLD, beam)
    assert [(e.kind, e.hypothesis) for e in examples] == [
        ("gold", "Alice purchased apples"), ("top1", "Alice bought apples"), ("bottom", "Alice purchased apples")]
    assert all(set(labels(e).values()) == {1} for e in examples)


def test_examples_without_arcs_are_left_out_unless_kept():
    beam = [cand(svo("Carol", "sold", "pears"), 1)]
    assert [e.kind for e in label_arcs(X, GOLD, beam)] == ["gold"]
    kept = label_arcs(X, GOLD, beam, LabelConfig(keep_empty=True))
    assert [(e.kind, e.arcs) for e in kept][1] == ("top1", [])


def test_ids_are_content_hashes_stable_and_distinct():
    beam = [cand(svo("Alice", "bought", "pears"), 1), cand(svo("Bob", "bought", "pears"), 2)]
    first, again = label_arcs(X, GOLD, beam), label_arcs(X, GOLD, list(reversed(beam)))
    assert [e.id for e in first] == [e.id for e in again]
    assert len({e.id for e in first}) == 3
    assert {e.source_id for e in first} == {"s1"} and {e.premise for e in first} == {X.text}


def test_sentence_level_gold_and_identity_entailed_bottom_three_not():
    beam = [cand(svo(f"P{r}", "sold", "pears"), r) for r in range(1, 11)]
    beam[9] = cand(svo("Alice", "bought", "apples"), 10)  # a copy of x is never a negative
    examples = label_sentences(X, GOLD, beam)
    assert [(e.kind, e.hypothesis, e.label) for e in examples] == [
        ("gold", GOLD.text, 1), ("identity", X.text, 1),
        ("bottom", "P7 sold pears", 0), ("bottom", "P8 sold pears", 0), ("bottom", "P9 sold pears", 0)]
    assert all(e.arcs == [] for e in examples)


# Goyal & Durrett 2020, Figure 3, with the spaCy parses of the offline English model.
FIG3_X = "can you people guarantee the liquidation of Bluestar ?"
FIG3_GOLD = "can you guarantee Bluestar's disposal ?"
FIG3_BEAM = {1: "can you guarantee Bluestar's liquidation ?",
             8: "can you guarantee the liquidation of Bluestar ?",
             9: "can you people guarantee Bluestar's liquidation ?",
             10: "can you guarantee liquidation Bluestar's death ?"}


@pytest.fixture(scope="module")
def figure3(parse):
    x, gold = parse(FIG3_X, "fig3", "source"), parse(FIG3_GOLD, "fig3", "gold")
    beam = [ParsedCandidate(Candidate("fig3", t, r, -float(r), "beam"), parse(t, "fig3", ROLE_CANDIDATE))
            for r, t in FIG3_BEAM.items()]
    return x, gold, beam


def test_figure3_arc_labels(figure3):
    examples = label_arcs(*figure3)
    assert [(e.kind, e.beam_rank) for e in examples] == [("gold", None), ("top1", 1), ("bottom", 8), ("bottom", 9),
                                                           ("bottom", 10)]
    gold, top1, h8, h9, h10 = map(labels, examples)
    assert gold == {("guarantee", "you", "nsubj"): 1, ("disposal", "bluestar", "poss"): 1,
                    ("guarantee", "disposal", "dobj"): 1}
    # h1: "guarantee you" is in d(h*), "guarantee liquidation" in d(x); "liquidation <-poss- Bluestar" is in neither
    assert top1 == {("guarantee", "you", "nsubj"): 1, ("guarantee", "liquidation", "dobj"): 1}
    assert h8 == {("guarantee", "you", "nsubj"): 1, ("guarantee", "liquidation", "dobj"): 1,
                  ("liquidation", "bluestar", "prep:of"): 1}
    # h9 repeats h1's possessive, which only h1 has: left unlabelled
    assert h9 == {("people", "you", "nmod"): 1, ("guarantee", "people", "nsubj"): 1,
                  ("liquidation", "bluestar", "poss"): None, ("guarantee", "liquidation", "dobj"): 1}
    # h10 hallucinates Bluestar's death: every arc but "guarantee you" is not entailed
    assert h10 == {("guarantee", "you", "nsubj"): 1, ("bluestar", "liquidation", "compound"): 0,
                   ("death", "bluestar", "poss"): 0, ("guarantee", "death", "dobj"): 0}


FIG3_STATS = {
    "examples": {"bottom": 3, "gold": 1, "top1": 1},
    "arcs": {"bottom": {"entailed": 7, "not_entailed": 3, "unlabelled": 1},
             "gold": {"entailed": 3, "not_entailed": 0, "unlabelled": 0},
             "top1": {"entailed": 2, "not_entailed": 0, "unlabelled": 0}},
    "sentence_labels": {},
    "labelled_arcs": 15, "entailed_arc_pct": 80.0,
    "table_2_kinds": ["gold", "identity", "top1", "bottom"], "table_2_labelled_arcs": 15,
    "majority_accuracy": 80.0,  # 12 of 15 labelled arcs are entailed
    # arc in d(x) predicts entailed: gold 0/3, top1 1/2, h8 2/3, h9 3/3, h10 3/4
    "lexical_match_accuracy": 60.0,
    "paper_table_2": {"majority_accuracy": 72.7, "lexical_match_accuracy": 74.2},
}


def test_figure3_stats(figure3):
    combine = ArcLabelStats()
    tallies = [arc_tally(e) for e in label_arcs(*figure3)]
    halves = [combine.create_accumulator(), combine.create_accumulator()]
    for i, t in enumerate(tallies):
        combine.add_input(halves[i % 2], t)
    assert combine.extract_output(combine.merge_accumulators(halves)) == FIG3_STATS


def test_figure3_arcs_store_the_lexical_match_prediction(figure3):
    bottom = [e for e in label_arcs(*figure3) if e.kind == "bottom"][-1]  # h10: x has none of its arcs
    assert {(a.head_lemma, a.child_lemma, a.rel): a.in_premise for a in bottom.arcs} == {
        ("guarantee", "you", "nsubj"): False, ("bluestar", "liquidation", "compound"): False,
        ("death", "bluestar", "poss"): False, ("guarantee", "death", "dobj"): False}


def test_stats_count_augmented_kinds_but_compare_table_2_on_section_4_kinds(figure3):
    """Issue 12 item 7: augmented arcs are counted; majority and lexical match stay on the §4 kinds."""
    combine = ArcLabelStats()
    acc = combine.create_accumulator()
    augmented = [ArcTally("word_swap", (1, 0, 0), (True, False, True)), ArcTally("overlap", (0, 0), (None, None))]
    for t in [arc_tally(e) for e in label_arcs(*figure3)] + augmented:
        combine.add_input(acc, t)
    out = combine.extract_output(acc)
    assert out["examples"] == {"bottom": 3, "gold": 1, "overlap": 1, "top1": 1, "word_swap": 1}
    assert out["arcs"]["word_swap"] == {"entailed": 1, "not_entailed": 2, "unlabelled": 0}
    assert out["arcs"]["overlap"] == {"entailed": 0, "not_entailed": 2, "unlabelled": 0}
    assert (out["labelled_arcs"], out["entailed_arc_pct"]) == (20, 65.0)  # 13 of 20 entailed
    assert (out["table_2_labelled_arcs"], out["majority_accuracy"], out["lexical_match_accuracy"]) == (15, 80.0, 60.0)


def test_stats_without_table_2_count_labels_and_name_no_baseline(figure3):
    """Data with no §4 kinds (document-arcs) names no Table 2 baseline: the same counts, no blank accuracy."""
    combine = ArcLabelStats(table_2=False)
    acc = combine.create_accumulator()
    for t in [arc_tally(e) for e in label_arcs(*figure3)]:
        combine.add_input(acc, t)
    assert combine.extract_output(acc) == {key: FIG3_STATS[key] for key in (
        "examples", "arcs", "sentence_labels", "labelled_arcs", "entailed_arc_pct")}


def test_stats_of_nothing_have_no_accuracy():
    out = ArcLabelStats().extract_output(ArcLabelStats().create_accumulator())
    assert (out["labelled_arcs"], out["majority_accuracy"], out["lexical_match_accuracy"]) == (0, None, None)


def test_sentence_level_stats_count_labels():
    combine = ArcLabelStats()
    acc = combine.create_accumulator()
    for e in label_sentences(X, GOLD, [cand(svo("Alice", "bought", "pears"), 1), cand(svo("Bob", "sold", "x"), 2)]):
        combine.add_input(acc, arc_tally(e))
    out = combine.extract_output(acc)
    assert out["sentence_labels"] == {"entailed": 2, "not_entailed": 1}
    assert out["labelled_arcs"] == 0


def group(*parses, candidates=()):
    return {"parsed": list(parses), "candidates": [c.candidate for c in candidates]}


def test_unpack_group_joins_candidates_to_parses_even_a_copy_of_x():
    copy_of_x = dataclasses.replace(X, role=ROLE_CANDIDATE)  # same text and parse id as x, other role
    h = cand(copy_of_x, 1)
    source, gold, beam = unpack_group("s1", group(X, GOLD, X, copy_of_x, candidates=[h]), LabelConfig())
    assert (source, gold, beam) == (X, GOLD, [h])


def test_unpack_group_without_gold_is_a_dead_letter():
    dead = unpack_group("s1", group(X), LabelConfig())
    assert isinstance(dead, DeadLetter)
    assert (dead.stage, dead.error_type, dead.raw) == ("label", "IncompleteGroup", X.text)
    assert "0 gold parses" in dead.message


def test_candidate_whose_parse_failed_is_left_out():
    h1, h2 = cand(svo("Alice", "bought", "pears"), 1), cand(svo("Bob", "bought", "pears"), 2)
    _, _, beam = unpack_group("s1", {"parsed": [X, GOLD, h1.parse], "candidates": [h1.candidate, h2.candidate]},
                              LabelConfig())
    assert beam == [h1]


def test_label_arcs_transform():
    beam_ = [cand(svo("Alice", "bought", "pears"), 1), cand(svo("Bob", "bought", "pears"), 2)]
    groups = [("s1", group(X, GOLD, *[c.parse for c in beam_], candidates=beam_)), ("s2", group(GOLD))]
    with TestPipeline() as p:
        out = p | beam.Create(groups) | LabelArcs(LabelConfig())
        assert_that(out.examples | beam.Map(lambda e: (e.kind, e.hypothesis, e.beam_rank, sorted(
            (a.child_lemma, a.rel, a.entailed) for a in e.arcs))), equal_to([
                ("gold", "Alice purchased apples", None, [("alice", "nsubj", 1), ("apples", "dobj", 1)]),
                ("top1", "Alice bought pears", 1, [("alice", "nsubj", 1)]),  # pears: not in d(x) or d(h*)
                ("bottom", "Bob bought pears", 2, [("bob", "nsubj", 0), ("pears", "dobj", None)])]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.error_type)),
                    equal_to([("s2", "IncompleteGroup")]), label="dead")
        stats = out.tallies | beam.CombineGlobally(ArcLabelStats())
        assert_that(stats | beam.Map(lambda s: (s["examples"], s["labelled_arcs"], s["lexical_match_accuracy"])),
                    equal_to([({"bottom": 1, "gold": 1, "top1": 1}, 4, 50.0)]), label="stats")


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="level"):
        LabelArcs(LabelConfig(level="token"))


def test_a_source_whose_hypotheses_have_no_arc_is_skipped_not_lost():
    bare_x = sentence(("Yes", -1, "ROOT"), ("!", 0, "punct"), role="source", source_id="s3")
    bare_gold = sentence(("Yes", -1, "ROOT"), role="gold", source_id="s3")
    with TestPipeline() as p:
        out = p | beam.Create([("s3", group(bare_x, bare_gold))]) | LabelArcs(LabelConfig())
        assert_that(out.examples, equal_to([]))
        assert_that(out.skipped, equal_to([Skipped("test", "s3", "label", "NoArcs")]), label="skipped")
