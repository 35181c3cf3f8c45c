"""NER recast: mentions from BIO/IOB tags, "NP is a/an Label" hypotheses, and the prior-drawn not-entailed label."""
from collections import Counter

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import ENTAILED, NOT_ENTAILED
from entailgen.schemas.records import Skipped
from entailgen.schemas.sources import NerSentence
from entailgen.transforms.recast.common import RecastError, rte_pair
from entailgen.transforms.recast.ner import (NerRecastConfig, RecastNer, TagPrior, TagPriorFn, entity_mentions,
                                             indefinite_article, recast_ner, tag_prior, verbalise)


def conll(source_id, text, tags, pos=""):
    return NerSentence(source_id, "conll2003", text.split(), tags.split(), pos.split())


# Poliak 2020 ch. 3's NER example sentence, tagged the CoNLL-2003 way ("the" outside the LOC mention).
RICE = conll("rice", "Ms. Rice said the United States must work intensively .", "O B-PER O O B-LOC I-LOC O O O O",
             "NNP NNP VBD DT NNP NNPS MD VB RB .")
# The rest of a tiny corpus: "Rice" is also an ORG (the university), "United States" also an ORG (a team).
CORPUS = [
    RICE,
    conll("c2", "Rice beat Baylor 24 - 21 .", "B-ORG O B-ORG O O O O"),
    conll("c3", "United States won the Davis Cup .", "B-ORG I-ORG O O B-MISC I-MISC O"),
    conll("c4", "Ms. Rice met Powell .", "O B-PER O B-PER O"),
]
# GMB's first sentence (tags B-geo / B-gpe).
GMB = NerSentence("gmb:1", "gmb", ("Thousands of demonstrators have marched through London to protest the war in Iraq "
                                   "and demand the withdrawal of British troops from that country .").split(),
                  "O O O O O O B-geo O O O O O B-geo O O O O O B-gpe O O O O O".split())


def pair(sentence, hypothesis, entailed):
    return rte_pair(" ".join(sentence.tokens), hypothesis, entailed, "ner", "ner/is-a", sentence.source,
                    sentence.source_id)


def test_thesis_example_true_labels_entailed_and_not_entailed_alternatives_from_the_phrase_prior():
    prior = tag_prior(CORPUS)
    assert prior.by_phrase["Rice"] == {"org": 1, "per": 2}
    assert prior.by_phrase["United States"] == {"loc": 1, "org": 1}
    # each phrase has exactly one other tag in the corpus, so the drawn not-entailed label is forced
    assert recast_ner(RICE, prior) == [
        pair(RICE, "Rice is a person", True),
        pair(RICE, "Rice is an organization", False),
        pair(RICE, "The United States is a location", True),
        pair(RICE, "The United States is an organization", False),
    ]
    labels = [p.label for p in recast_ner(RICE, prior)]
    assert labels == [ENTAILED, NOT_ENTAILED, ENTAILED, NOT_ENTAILED]


def test_gmb_labels_and_corpus_prior_fallback():
    # London and Iraq were only ever geo, British only gpe: the not-entailed label falls back to the corpus prior
    # (geo: 2, gpe: 1) minus the true tag, which leaves exactly one choice each.
    assert recast_ner(GMB, tag_prior([GMB])) == [
        pair(GMB, "London is a geographical entity", True),
        pair(GMB, "London is a geopolitical entity", False),
        pair(GMB, "Iraq is a geographical entity", True),
        pair(GMB, "Iraq is a geopolitical entity", False),
        pair(GMB, "British is a geopolitical entity", True),
        pair(GMB, "British is a geographical entity", False),
    ]


def test_a_mention_that_starts_with_the_keeps_it():
    sentence = conll("nl", "The Netherlands beat Spain 2 - 1 .", "B-LOC I-LOC O B-LOC O O O O")
    prior = TagPrior(overall={"loc": 2, "per": 1})
    hypotheses = [p.hypothesis for p in recast_ner(sentence, prior)]
    assert hypotheses == ["The Netherlands is a location", "The Netherlands is a person",
                          "Spain is a location", "Spain is a person"]


def test_a_the_before_a_person_stays_out():
    sentence = conll("cl", "the Clinton administration said so .", "O B-PER O O O O")
    (entailed, _) = recast_ner(sentence, TagPrior(overall={"per": 1, "org": 1}))
    assert entailed.hypothesis == "Clinton is a person"


@pytest.mark.parametrize("sentence, hypothesis", [
    # issue #55: "The Japanese is a miscellaneous entity", "The Paris is a location" before
    (conll("jp", "The Japanese carmaker said on Monday it would recall 100,000 cars .",
           "O B-MISC O O O O O O O O O O", "DT JJ NN VBD IN NNP PRP MD VB CD NNS ."),
     "Japanese is a miscellaneous entity"),
    (conll("pm", "They rode the Paris metro to work .", "O O O B-LOC O O O O", "PRP VBD DT NNP NN TO VB ."),
     "Paris is a location"),
    # CoNLL-2003 tags some common nouns NNP ("British lamb"): a noun all the same
    (conll("ec", "the European Commission lamb ban", "O B-ORG I-ORG O O", "DT NNP NNP NNP NN"),
     "European Commission is an organization"),
    # the mention is the noun phrase: "the" stays
    (conll("ec2", "the European Commission said so", "O B-ORG I-ORG O O", "DT NNP NNP VBD RB"),
     "The European Commission is an organization"),
])
def test_a_mention_that_modifies_a_larger_noun_phrase_leaves_its_the_behind(sentence, hypothesis):
    assert recast_ner(sentence, TagPrior(overall={"misc": 1, "loc": 1, "org": 1}))[0].hypothesis == hypothesis


@pytest.mark.parametrize("entity_type, label", [
    ("per", "a person"), ("loc", "a location"), ("org", "an organization"), ("misc", "a miscellaneous entity"),
    ("geo", "a geographical entity"), ("gpe", "a geopolitical entity"), ("tim", "a time"), ("art", "an artifact"),
    ("eve", "an event"), ("nat", "a natural phenomenon"),
])
def test_verbalised_labels_agree_with_their_article(entity_type, label):
    assert verbalise(entity_type) == label


@pytest.mark.parametrize("noun, article", [("organization", "an"), ("event", "an"), ("person", "a"),
                                           ("university", "a"), ("hour", "an"), ("European", "a"), ("idea", "an")])
def test_indefinite_article(noun, article):
    assert indefinite_article(noun) == article


def test_iob1_and_bio_spans():
    # CoNLL-2003's original IOB1: I- opens a mention after O; B- only separates two adjacent mentions of one type.
    iob1 = conll("iob1", "EU rejects German call ; Japan China talks", "I-ORG O I-MISC O O I-LOC B-LOC O")
    assert [(m.phrase, m.entity_type) for m in entity_mentions(iob1)] == [
        ("EU", "org"), ("German", "misc"), ("Japan", "loc"), ("China", "loc")]
    bio = conll("bio", "Peter Blackburn of New York", "B-PER I-PER O B-LOC I-LOC")
    assert [(m.start, m.end, m.phrase) for m in entity_mentions(bio)] == [(0, 2, "Peter Blackburn"),
                                                                          (3, 5, "New York")]


def test_malformed_tags_raise():
    with pytest.raises(RecastError, match="3 tokens but 2 tags"):
        entity_mentions(conll("x", "a b c", "O O"))
    with pytest.raises(RecastError, match="unknown entity tag 'B-FOO'"):
        entity_mentions(conll("x", "a b", "B-FOO O"))


def test_no_alternative_tag_raises():
    with pytest.raises(RecastError, match="no tag other than 'per'"):
        recast_ner(conll("x", "Rice spoke", "B-PER O"), TagPrior(overall={"per": 3}))


def test_not_entailed_label_follows_the_phrase_prior_and_the_seed():
    # "Jordan" seen as per 1, loc 6, org 3: a per mention draws loc with p = 6/9, org with p = 3/9.
    prior = TagPrior(by_phrase={"Jordan": {"per": 1, "loc": 6, "org": 3}}, overall={"per": 1, "loc": 6, "org": 3})
    sentences = [conll(f"j{i}", "Jordan spoke .", "B-PER O O") for i in range(900)]
    drawn = Counter(recast_ner(s, prior)[1].hypothesis for s in sentences)
    assert set(drawn) == {"Jordan is a location", "Jordan is an organization"}
    assert 0.60 < drawn["Jordan is a location"] / 900 < 0.73
    again = [recast_ner(s, prior)[1].hypothesis for s in sentences[:50]]
    assert again == [recast_ner(s, prior)[1].hypothesis for s in sentences[:50]]
    reseeded = [recast_ner(s, prior, NerRecastConfig(seed=7))[1].hypothesis for s in sentences[:50]]
    assert reseeded != again


def test_repeated_mentions_recast_once():
    sentence = conll("rep", "Paris and Paris", "B-LOC O B-LOC")
    assert len(recast_ner(sentence, TagPrior(overall={"loc": 2, "per": 1}))) == 2


def test_prior_combine_fn_merges_like_the_pure_function():
    fn = TagPriorFn()
    left = fn.add_input(fn.create_accumulator(), CORPUS[0])
    right = fn.add_input(fn.add_input(fn.create_accumulator(), CORPUS[1]), CORPUS[2])
    right = fn.add_input(right, conll("bad", "a b", "O"))  # malformed: counted by nobody here, dead in RecastNer
    merged = fn.extract_output(fn.merge_accumulators([left, right]))
    assert merged == tag_prior(CORPUS[:3])
    assert merged.overall == {"loc": 1, "misc": 1, "org": 3, "per": 1}


def test_recast_ner_transform_outputs_pairs_and_dead_letters():
    bad = conll("bad", "a b c", "O O")
    with TestPipeline() as p:
        results = p | beam.Create([GMB, bad]) | RecastNer(NerRecastConfig())
        assert_that(results.pairs | beam.Map(lambda r: (r.hypothesis, r.label)), equal_to([
            ("London is a geographical entity", ENTAILED), ("London is a geopolitical entity", NOT_ENTAILED),
            ("Iraq is a geographical entity", ENTAILED), ("Iraq is a geopolitical entity", NOT_ENTAILED),
            ("British is a geopolitical entity", ENTAILED), ("British is a geographical entity", NOT_ENTAILED),
        ]), label="pairs")
        assert_that(results.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type)),
                    equal_to([("bad", "recast_ner", "RecastError")]), label="dead")


def test_recast_ner_transform_with_a_given_prior():
    with TestPipeline() as p:
        prior = p | "Prior" >> beam.Create([tag_prior(CORPUS)])
        results = p | beam.Create([RICE]) | RecastNer(prior=prior)
        assert_that(results.pairs, equal_to(recast_ner(RICE, tag_prior(CORPUS))))


def test_sentence_without_mentions_is_skipped_and_counted():
    sentence = conll("x:9", "It rained all day", "O O O O")
    result = recast_ner(sentence, tag_prior([sentence]))
    assert result == Skipped("conll2003", "x:9", "recast_ner", "NoEntityMention")
