"""Sentiment recast: the DNC premise/hypothesis templates, and first names drawn by frequency, seeded per review."""
from collections import Counter

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED
from entailgen.schemas.sources import Review
from entailgen.transforms.recast.common import RecastError
from entailgen.transforms.recast.sentiment import (FIRST_NAMES, NameTable, RecastSentiment, SentimentConfig,
                                                   load_first_names, recast_sentiment)

JESSE = NameTable.of([("Jesse", 1)])
# Reviews the DNC recast (Kotzias et al. 2015 sentences, as in its sentiment dev set).
TREMENDOUS = Review("amazon_cells_labelled.txt 140", "kotzias2015", "Voice recognition is tremendous!", 1, "product")
NOT_BACK = Review("yelp_labelled.txt 692", "kotzias2015", "I probably won't be back, to be honest.", 0, "restaurant")


def view(pairs):
    return [(p.premise, p.hypothesis, p.label, p.template) for p in pairs]


def test_positive_review_liked_is_entailed():
    premise = 'When asked about the product, Jesse said "Voice recognition is tremendous!"'
    pairs = recast_sentiment(TREMENDOUS, JESSE)
    assert view(pairs) == [
        (premise, "Jesse liked the product", ENTAILED, "sentiment/liked"),
        (premise, "Jesse did not like the product", NOT_ENTAILED, "sentiment/did-not-like"),
    ]
    assert {(p.phenomenon, p.source, p.source_id, p.split) for p in pairs} == {
        ("sentiment", "kotzias2015", "amazon_cells_labelled.txt 140", None)}


def test_negative_review_did_not_like_is_entailed():
    premise = "When asked about the restaurant, Jesse said \"I probably won't be back, to be honest.\""
    assert view(recast_sentiment(NOT_BACK, JESSE)) == [
        (premise, "Jesse liked the restaurant", NOT_ENTAILED, "sentiment/liked"),
        (premise, "Jesse did not like the restaurant", ENTAILED, "sentiment/did-not-like"),
    ]


def test_both_hypotheses_share_one_premise_and_speaker():
    liked, disliked = recast_sentiment(TREMENDOUS, load_first_names())
    name = liked.hypothesis.split(" liked ")[0]
    assert liked.premise == disliked.premise
    assert disliked.hypothesis == f"{name} did not like the product"
    assert f", {name} said " in liked.premise


@pytest.mark.parametrize("review, message", [
    (Review("r", "s", "Great.", 1, "book"), "item 'book'"),
    (Review("r", "s", "Great.", 2, "movie"), "sentiment label 2"),
    (Review("r", "s", "   ", 1, "movie"), "empty review"),
])
def test_bad_reviews_raise(review, message):
    with pytest.raises(RecastError, match=message):
        recast_sentiment(review, JESSE)


def test_name_is_deterministic_per_review_and_seed():
    names = load_first_names()
    reviews = [Review(f"r{i}", "s", f"Review number {i}.", i % 2, "movie") for i in range(40)]
    first = [recast_sentiment(r, names)[0].hypothesis for r in reviews]
    assert first == [recast_sentiment(r, names)[0].hypothesis for r in reviews]
    assert first != [recast_sentiment(r, names, SentimentConfig(seed=1))[0].hypothesis for r in reviews]
    assert len(set(first)) > 10  # names vary across reviews


def test_draws_follow_the_frequencies():
    table = NameTable.of([("Ann", 1), ("Bob", 3)])
    draws = Counter(table.draw(seeded_rng(0, str(i), "test")) for i in range(4000))
    assert 0.72 < draws["Bob"] / 4000 < 0.78
    names = load_first_names()
    total = names.cumulative[-1]
    draws = Counter(names.draw(seeded_rng(0, str(i), "test")) for i in range(20000))
    for name, count in (("James", 3318), ("Mary", 2629)):  # the shipped list's counts for its top names
        expected = 20000 * count / total
        assert 0.8 * expected < draws[name] < 1.2 * expected, name


def test_shipped_first_names_file():
    lines = FIRST_NAMES.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#") and "Census" in lines[1]  # provenance header
    names = load_first_names()
    assert len(names.names) >= 300 and len(set(names.names)) == len(names.names)
    assert names.names[:2] == ("James", "John")
    with pytest.raises(ValueError, match="positive count"):
        NameTable.of([("Zed", 0)])


def test_recast_sentiment_transform(tmp_path):
    names = tmp_path / "names.tsv"
    names.write_text("# one name\nJesse\t5\n", encoding="utf-8")
    bad = Review("bad", "kotzias2015", "Fine.", 1, "car")
    with TestPipeline() as p:
        results = (p | beam.Create([TREMENDOUS, NOT_BACK, bad])
                   | RecastSentiment(SentimentConfig(names_path=str(names))))
        assert_that(results.pairs, equal_to(recast_sentiment(TREMENDOUS, JESSE) + recast_sentiment(NOT_BACK, JESSE)),
                    label="pairs")
        assert_that(results.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type)),
                    equal_to([("bad", "recast_sentiment", "RecastError")]), label="dead")
