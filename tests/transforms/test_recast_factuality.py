"""Factuality recast: gerund nominalisation, both hypotheses per predicate, ambiguous values skipped and counted."""
import apache_beam as beam
import pytest
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import ENTAILED, NOT_ENTAILED
from entailgen.schemas.records import Skipped
from entailgen.schemas.sources import FactualityAnnotation
from entailgen.transforms.recast.common import RecastError
from entailgen.transforms.recast.factuality import FactualityConfig, RecastFactuality, gerund, recast_factuality


def annotation(source_id, text, index, lemma, value):
    return FactualityAnnotation(source_id, "uds-ewt", text.split(), index, lemma, value)


# Poliak 2020 ch. 3: in "I would like to learn how" the learning is not factual.
LEARN = annotation("ewt:learn", "I would like to learn how", 4, "learn", -1.8)
# From the DNC's recast factuality dev set: "We go over about 5 times a year ." -> "The going happened" entailed.
GO = annotation("ewt:go", "We go over about 5 times a year .", 1, "go", 2.2)


def hypotheses(pairs):
    return [(p.hypothesis, p.label, p.template) for p in pairs]


def test_thesis_example_learning_did_not_happen_is_entailed():
    pairs = recast_factuality(LEARN)
    assert hypotheses(pairs) == [
        ("The learning happened", NOT_ENTAILED, "factuality/happened"),
        ("The learning did not happen", ENTAILED, "factuality/did-not-happen"),
    ]
    assert {(p.premise, p.phenomenon, p.source, p.source_id) for p in pairs} == {
        ("I would like to learn how", "factuality", "uds-ewt", "ewt:learn")}
    assert pairs[0].id != pairs[1].id


def test_positive_value_makes_happened_entailed():
    assert hypotheses(recast_factuality(GO)) == [
        ("The going happened", ENTAILED, "factuality/happened"),
        ("The going did not happen", NOT_ENTAILED, "factuality/did-not-happen"),
    ]


def test_sentence_field_is_the_premise_when_given():
    given = FactualityAnnotation("s", "uds-ewt", ["We", "go", "."], 1, "go", 1.0, sentence="We go.")
    assert {p.premise for p in recast_factuality(given)} == {"We go."}


@pytest.mark.parametrize("lemma, expected", [
    ("learn", "learning"), ("run", "running"), ("make", "making"), ("lie", "lying"), ("be", "being"),
    ("see", "seeing"), ("agree", "agreeing"), ("dye", "dyeing"), ("die", "dying"), ("stop", "stopping"),
    ("quit", "quitting"), ("begin", "beginning"), ("forget", "forgetting"), ("visit", "visiting"),
    ("open", "opening"), ("happen", "happening"), ("panic", "panicking"), ("fix", "fixing"), ("play", "playing"),
    ("show", "showing"), ("go", "going"), ("have", "having"), ("keep", "keeping"), ("want", "wanting"),
    ("argue", "arguing"), ("ski", "skiing"), ("Swim", "swimming"), ("re-elect", "re-electing"),
])
def test_gerund_table(lemma, expected):
    assert gerund(lemma) == expected


@pytest.mark.parametrize("lemma, expected", [
    # issue #55: DNC has "occurring", "sidestepping", "undercutting"; entailgen wrote "occuring", "sidesteping", ...
    ("occur", "occurring"), ("sidestep", "sidestepping"), ("undercut", "undercutting"), ("overlap", "overlapping"),
    # final stress, and a stressed particle before a verb that doubles
    ("prefer", "preferring"), ("admit", "admitting"), ("control", "controlling"), ("compel", "compelling"),
    ("upset", "upsetting"), ("input", "inputting"), ("offset", "offsetting"), ("outwit", "outwitting"),
    ("kidnap", "kidnapping"), ("format", "formatting"),
    # stress before the last syllable: no doubling (American spelling, as the DNC's EWT text)
    ("visit", "visiting"), ("open", "opening"), ("travel", "traveling"), ("target", "targeting"),
    ("develop", "developing"), ("inhabit", "inhabiting"), ("offer", "offering"), ("undergo", "undergoing"),
    ("overhear", "overhearing"), ("inform", "informing"),
])
def test_gerund_doubles_only_on_a_stressed_final_syllable(lemma, expected):
    assert gerund(lemma) == expected


@pytest.mark.parametrize("lemma", ["n't", "5", "", "two words"])
def test_non_word_lemmas_raise(lemma):
    with pytest.raises(RecastError, match="not a word"):
        gerund(lemma)


@pytest.mark.parametrize("value", [0.3, -0.49, 0.0])
def test_ambiguous_values_are_skipped_not_recast(value):
    result = recast_factuality(annotation("amb", "They may leave", 2, "leave", value))
    assert isinstance(result, Skipped)
    assert (result.source, result.source_id, result.stage) == ("uds-ewt", "amb", "recast_factuality")
    assert result.reason == "AmbiguousValue"


def test_threshold_boundary_and_option():
    at_threshold = annotation("t", "They left", 1, "leave", -0.5)
    assert hypotheses(recast_factuality(at_threshold))[1] == ("The leaving did not happen", ENTAILED,
                                                               "factuality/did-not-happen")
    at_plus_threshold = annotation("p", "They left", 1, "leave", 0.5)  # |value| == threshold is not ambiguous
    assert hypotheses(recast_factuality(at_plus_threshold)) == [
        ("The leaving happened", ENTAILED, "factuality/happened"),
        ("The leaving did not happen", NOT_ENTAILED, "factuality/did-not-happen")]
    weak = annotation("w", "They left", 1, "leave", 0.3)
    assert len(recast_factuality(weak, FactualityConfig(threshold=0.0))) == 2
    assert isinstance(recast_factuality(annotation("z", "They left", 1, "leave", 0.0), FactualityConfig(0.0)), Skipped)


def test_missing_lemma_and_bad_values_raise():
    with pytest.raises(RecastError, match="no predicate lemma"):
        recast_factuality(annotation("nl", "They left", 1, "", 1.5))
    with pytest.raises(RecastError, match="value is nan"):
        recast_factuality(annotation("nan", "They left", 1, "leave", float("nan")))


def test_recast_factuality_transform_routes_pairs_skipped_and_dead():
    ambiguous = annotation("amb", "They may leave", 2, "leave", 0.2)
    bad = annotation("bad", "They n't", 1, "n't", 2.0)
    p = TestPipeline()
    results = p | beam.Create([LEARN, ambiguous, bad]) | RecastFactuality()
    assert_that(results.pairs | beam.Map(lambda r: (r.hypothesis, r.label)), equal_to([
        ("The learning happened", NOT_ENTAILED), ("The learning did not happen", ENTAILED)]), label="pairs")
    assert_that(results.skipped | beam.Map(lambda s: s.source_id), equal_to(["amb"]), label="skipped")
    assert_that(results.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type)),
                equal_to([("bad", "recast_factuality", "RecastError")]), label="dead")
    result = p.run()
    result.wait_until_finish()
    counts = {name: sum(c.committed for c in result.metrics().query(
        MetricsFilter().with_namespace("entailgen").with_name(name))["counters"])
        for name in ("recast_factuality_in", "recast_factuality_pairs", "recast_factuality_skipped",
                     "recast_factuality_dead")}
    assert counts == {"recast_factuality_in": 3, "recast_factuality_pairs": 2, "recast_factuality_skipped": 1,
                      "recast_factuality_dead": 1}
