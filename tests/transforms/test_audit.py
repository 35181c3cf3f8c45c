"""Audit (Poliak 2020 ch. 5): majority class and hypothesis-only baselines on sets built with the recast functions."""
import math

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.dataset.report.audit_notes import AUDIT_EXPLANATION, audit_findings
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, with_split
from entailgen.schemas.sources import FactualityAnnotation, NerSentence, Review
from entailgen.transforms.hypothesis_only import Audit, NaiveBayes, audit, hypothesis_words, majority_label
from entailgen.transforms.recast.factuality import recast_factuality
from entailgen.transforms.recast.ner import recast_ner, tag_prior
from entailgen.transforms.recast.sentiment import load_first_names, recast_sentiment

ITEMS = ("product", "movie", "restaurant")


def sentiment_pairs(n_train=60, n_test=30):
    """Balanced reviews (alternating positive, negative), each review's two pairs in one given split."""
    names = load_first_names()
    pairs = []
    for i in range(n_train + n_test):
        review = Review(f"r{i}", "kotzias2015", f"Review text number {i}.", i % 2, ITEMS[(i // 2) % 3])
        pairs += [with_split(p, "train" if i < n_train else "test") for p in recast_sentiment(review, names)]
    return pairs


def ner_pairs(n=1000):
    """One mention per sentence, types skewed per 60 / loc 25 / org 15; every phrase has a single type, so the
    not-entailed label is drawn from the corpus prior; splits left unset (the audit derives them)."""
    phrases = {"PER": ["Rice", "Smith", "Garcia", "Chen"], "LOC": ["Paris", "Lagos"], "ORG": ["Reuters", "NATO"]}
    sentences = []
    for i in range(n):
        kind = "PER" if i % 20 < 12 else "LOC" if i % 20 < 17 else "ORG"
        phrase = phrases[kind][i % len(phrases[kind])]
        sentences.append(NerSentence(f"n{i}", "conll2003", [phrase, "was", "mentioned", f"{i}", "times", "."],
                                     [f"B-{kind}", "O", "O", "O", "O", "O"]))
    prior = tag_prior(sentences)
    return [p for s in sentences for p in recast_ner(s, prior)]


def factuality_pairs(n=400):
    """Three in four predicates happened (as most UDS predicates do), independently of the verb; given splits 4:1."""
    lemmas = ["go", "say", "make", "leave", "see", "run", "buy", "call"]
    pairs = []
    for i in range(n):
        value = 2.0 if i % 4 else -2.0
        annotation = FactualityAnnotation(f"f{i}", "uds-ewt", ["Sentence", str(i)], 0, lemmas[i // 4 % 8], value)
        pairs += [with_split(p, "test" if i % 5 == 0 else "train") for p in recast_factuality(annotation)]
    return pairs


def test_naive_bayes_hand_worked():
    # train: E "x liked" twice, NE "x hated" once; vocabulary {x, liked, hated}
    model = NaiveBayes.fit([(["x", "liked"], ENTAILED), (["x", "liked"], ENTAILED), (["x", "hated"], NOT_ENTAILED)])
    # "x hated": E 2/3 * (2+1)/(4+3) * (0+1)/(4+3) = 6/147 < NE 1/3 * (1+1)/(2+3) * (1+1)/(2+3) = 4/75
    assert model.predict(["x", "hated"]) == NOT_ENTAILED
    # "x": E 2/3 * 3/7 = 0.286 > NE 1/3 * 2/5 = 0.133; unseen words alone leave the prior (2/3 E)
    assert model.predict(["x"]) == ENTAILED
    assert model.predict(["unseen"]) == ENTAILED
    assert math.isclose(6 / 147, 2 / 3 * 3 / 7 * 1 / 7)


def test_majority_label_and_ties():
    assert majority_label(["b", "a", "b"]) == "b"
    assert majority_label([NOT_ENTAILED, ENTAILED]) == ENTAILED
    assert majority_label([]) is None
    assert hypothesis_words("The United States is a location.") == ["the", "united", "states", "is", "a", "location"]


def test_sentiment_hypothesis_only_is_exactly_fifty():
    report = audit(sentiment_pairs())["sentiment"]
    assert (report["n"], report["n_train"], report["n_test"], report["splits"]) == (180, 120, 60, "given")
    assert report["label_counts"] == {ENTAILED: 90, NOT_ENTAILED: 90}
    assert report["majority_accuracy"] == 50.0
    assert report["hypothesis_only_accuracy"] == 50.0


def test_ner_hypothesis_only_beats_majority_on_derived_splits():
    report = audit(ner_pairs())["ner"]
    assert report["splits"] == "derived (no 'train' split)"
    assert report["n"] == 2000 and report["n_train"] + report["n_test"] == 2000 and report["n_test"] > 200
    assert report["majority_accuracy"] == 50.0
    # label words leak: "a person" is entailed 60% of the time but drawn as not-entailed only ~31% (worked out from
    # the prior: 0.25 * 0.8 + 0.15 * 0.71), so the baseline expects about 65
    assert report["hypothesis_only_accuracy"] > 57.0


def test_factuality_hypothesis_only_beats_majority():
    report = audit(factuality_pairs())["factuality"]
    assert (report["n_train"], report["n_test"], report["splits"]) == (640, 160, "given")
    assert report["majority_accuracy"] == 50.0
    # "happened" is entailed for the 3 in 4 predicates that happened; the event word appears once per label
    assert report["hypothesis_only_accuracy"] == 75.0


def test_audit_reports_each_phenomenon_and_empty_input():
    assert audit([]) == {}
    both = audit(sentiment_pairs(6, 2) + factuality_pairs(16))
    assert sorted(both) == ["factuality", "sentiment"]


def test_explanation_names_the_reported_fields():
    report = audit(sentiment_pairs(6, 2))["sentiment"]
    for key in ("majority_accuracy", "hypothesis_only_accuracy", "n_train", "n_test", "splits"):
        assert key in report and f"'{key}'" in AUDIT_EXPLANATION


def test_audit_transform_matches_the_pure_function():
    pairs = sentiment_pairs(10, 4) + factuality_pairs(24)
    with TestPipeline() as p:
        assert_that(p | beam.Create(pairs) | Audit(), equal_to([audit(pairs)]))


def test_merged_partial_audits_equal_one_pass_and_keep_only_counts():
    from entailgen.transforms.hypothesis_only import AuditFn

    pairs = ner_pairs(200) + factuality_pairs(100) + sentiment_pairs()
    fn = AuditFn()
    parts = [fn.create_accumulator() for _ in range(3)]
    for i, pair in enumerate(pairs):
        fn.add_input(parts[i % 3], pair)
    merged = fn.merge_accumulators(parts)
    assert fn.extract_output(merged) == audit(pairs)
    # templated hypotheses repeat: the test rows are kept as distinct (words, label) counts, far fewer than the pairs
    assert sum(len(t[s]["test"]) for t in merged.values() for s in ("given", "derived")) < len(pairs) / 4


def test_findings_say_what_the_numbers_show_and_warn_on_a_tiny_test_split():
    result = {
        "factuality": {"n_test": 40, "majority_accuracy": 50.0, "hypothesis_only_accuracy": 70.0},
        "ner": {"n_test": 2, "majority_accuracy": 50.0, "hypothesis_only_accuracy": 100.0},
        "nli": {"n_test": 0, "majority_accuracy": None, "hypothesis_only_accuracy": None},
        "other": {"n_train": 0, "n_test": 4, "majority_accuracy": None, "hypothesis_only_accuracy": None},
        "sentiment": {"n_test": 30, "majority_accuracy": 50.0, "hypothesis_only_accuracy": 53.33},
    }
    assert audit_findings(result) == [
        "factuality: the hypothesis alone scores 70.0, 20.0 points above the majority class (50.0) on 40 test pairs: "
        "its words give part of the label away.",
        "ner: only 2 test pairs, too few for 100.0 (hypothesis only) and 50.0 (majority class) to mean anything: one "
        "pair moves them by 50.0 points. Use more input before reading this audit.",
        "nli: no test pairs, so neither baseline could be measured.",
        "other: no train pairs, so neither baseline could be measured.",
        "sentiment: the hypothesis alone scores 53.33 against 50.0 for the majority class on 30 test pairs: no clear "
        "cue in the hypothesis words alone.",
    ]


def test_the_card_and_page_carry_the_findings_of_their_own_audit():
    from entailgen.dataset.report.tables import stat_notes

    notes = stat_notes("audit", {"ner": {"n_test": 2, "majority_accuracy": 50.0, "hypothesis_only_accuracy": 100.0}})
    assert notes[0] == AUDIT_EXPLANATION and notes[1].startswith("ner: only 2 test pairs, too few")
