"""Synonym examples: close gold paraphrases and WordNet-style substitutions, every hypothesis arc 1 (DAE §5.3)."""
import dataclasses
import math
from dataclasses import dataclass

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ParsedSentence, Token
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.augment.common import spaced_text
from entailgen.transforms.augment.synonym import (
    Link, SynonymOptions, SynonymPairs, SynonymSubstitution, align, is_close_paraphrase, mean_displacement,
    substitute, substitution_sites, synonym_pair_example, synonym_substitution_example)
from entailgen.transforms.augment.wordnet import TableLexicon

LEXICON = TableLexicon(((("buy", "VERB"), ("purchase",)), (("purchase", "VERB"), ("buy",)),
                        (("car", "NOUN"), ("automobile", "auto")), (("boy", "NOUN"), ())))
SYNONYMS = LEXICON.load()


def clause(*words, source_id="s:1") -> ParsedSentence:
    """A hand-built parse from (text, lemma, pos, tag, head, dep) rows; no space before punctuation."""
    tokens = [Token(text, lemma, pos, tag, "O", head, dep,
                    space_after=k + 1 < len(words) and words[k + 1][2] != "PUNCT")
              for k, (text, lemma, pos, tag, head, dep) in enumerate(words)]
    text = spaced_text(tokens)
    return ParsedSentence(content_id(text, "hand"), text, tokens, extract_arcs(tokens), "hand", "test", source_id)


def bought(verb=("bought", "buy"), subject=("boy", "boy"), article="a", lead=(), tail=()):
    """'[lead] The <subject> <verb> a car [tail].' with the verb as root."""
    shift = len(lead)
    rows = [*lead,
            ("the" if lead else "The", "the", "DET", "DT", shift + 1, "det"),
            (subject[0], subject[1], "NOUN", "NN", shift + 2, "nsubj"),
            (verb[0], verb[1], "VERB", "VBD", -1, "ROOT"),
            (article, article, "DET", "DT", shift + 4, "det"),
            ("car", "car", "NOUN", "NN", shift + 2, "dobj"), *tail,
            (".", ".", "PUNCT", ".", shift + 2, "punct")]
    return clause(*rows)


X = bought()  # The boy bought a car.
KID_PURCHASED = bought(verb=("purchased", "purchase"), subject=("kid", "kid"))
YESTERDAY_FIRST = bought(lead=[("Yesterday", "yesterday", "NOUN", "NN", 3, "npadvmod")])
YESTERDAY_LAST = bought(tail=[("yesterday", "yesterday", "NOUN", "NN", 2, "npadvmod")])


def test_align_matches_forms_then_lemmas_then_synonyms():
    assert align(X, KID_PURCHASED, SYNONYMS) == [Link(0, 0, "exact"), Link(2, 2, "synonym"), Link(3, 3, "exact"),
                                                 Link(4, 4, "exact")]
    buys = bought(verb=("buys", "buy"))
    assert Link(2, 2, "lemma") in align(X, buys, SYNONYMS)


def test_moved_words_make_a_far_paraphrase():
    # "Yesterday the boy bought a car." vs "The boy bought a car yesterday.": five words move 1, one moves 5.
    links = align(YESTERDAY_FIRST, YESTERDAY_LAST, SYNONYMS)
    assert math.isclose(mean_displacement(links), 10 / 6)
    assert not is_close_paraphrase(YESTERDAY_FIRST, YESTERDAY_LAST, SYNONYMS, SynonymOptions(max_displacement=1.0))
    assert is_close_paraphrase(YESTERDAY_FIRST, YESTERDAY_LAST, SYNONYMS, SynonymOptions(max_displacement=2.0))


def test_too_few_aligned_words_make_a_far_paraphrase():
    other = clause(("Rain", "rain", "NOUN", "NN", 1, "nsubj"), ("fell", "fall", "VERB", "VBD", -1, "ROOT"),
                   ("on", "on", "ADP", "IN", 1, "prep"), ("a", "a", "DET", "DT", 4, "det"),
                   ("car", "car", "NOUN", "NN", 2, "pobj"), (".", ".", "PUNCT", ".", 1, "punct"))
    assert len(align(X, other, SYNONYMS)) == 2  # a, car: 2 of 5 words
    assert not is_close_paraphrase(X, other, SYNONYMS, SynonymOptions(min_aligned=0.6))


def test_close_gold_pair_has_all_arcs_entailed():
    example = synonym_pair_example(X, KID_PURCHASED, SYNONYMS)
    assert (example.premise, example.hypothesis) == ("The boy bought a car.", "The kid purchased a car.")
    assert [(a.key, a.entailed) for a in example.arcs] == [(("purchase", "kid", "nsubj"), 1),
                                                            (("purchase", "car", "dobj"), 1)]
    assert [a.in_premise for a in example.arcs] == [False, False]  # x has buy->boy, buy->car: lexical match says 0
    assert (example.kind, example.generator) == ("synonym", "augment:synonym:gold_pair")
    assert synonym_pair_example(YESTERDAY_FIRST, YESTERDAY_LAST, SYNONYMS) is None


def test_substitution_sites_are_uninflected_content_words():
    # "bought" is inflected (VBD), "boy" has no synonym: only "car" can change.
    assert substitution_sites(X, SYNONYMS) == [(4, "auto"), (4, "automobile")]


def test_substitute_keeps_the_tree_and_fixes_the_article():
    h = substitute(X, 4, "automobile")
    assert h.text == "The boy bought an automobile."
    assert [a.key for a in h.arcs] == [("buy", "boy", "nsubj"), ("buy", "automobile", "dobj")]
    assert substitute(X, 4, "auto").text == "The boy bought an auto."


def test_substitution_example_is_seeded_and_all_entailed():
    example = synonym_substitution_example(X, SYNONYMS, SynonymOptions(seed=1))
    assert example.hypothesis == "The boy bought an automobile."
    assert {a.entailed for a in example.arcs} == {1}
    assert example.generator == "augment:synonym:wordnet"
    assert len({synonym_substitution_example(X, SYNONYMS, SynonymOptions(seed=s)).hypothesis
                for s in range(20)}) == 2


def summary(example):
    """What a synonym example says: its pair, kind, generator and (child, rel, label) arcs."""
    return (example.premise, example.hypothesis, example.kind, example.generator,
            [(a.child_lemma, a.rel, a.entailed) for a in example.arcs])


def test_synonym_pairs_transform_keeps_only_close_pairs():
    with TestPipeline() as p:
        out = (p | beam.Create([(X, KID_PURCHASED), (YESTERDAY_FIRST, YESTERDAY_LAST)])
               | SynonymPairs(lexicon=LEXICON))
        assert_that(out.examples | beam.Map(summary), equal_to([(
            "The boy bought a car.", "The kid purchased a car.", "synonym", "augment:synonym:gold_pair",
            [("kid", "nsubj", 1), ("car", "dobj", 1)])]))
        assert_that(out.dead, equal_to([]), label="no dead")


@dataclass(frozen=True)
class BrokenLexicon:
    """A lexicon whose lookup fails for one lemma, as a corrupt WordNet entry would."""

    broken: str

    def load(self):
        def lookup(lemma, upos):
            if lemma == self.broken:
                raise LookupError(f"corrupt entry for {lemma!r}")
            return SYNONYMS(lemma, upos)
        return lookup


def dead_fields(d):
    return (d.source, d.source_id, d.stage, d.error_type, d.message, d.raw)


def test_a_failing_synonym_lookup_is_that_pairs_dead_letter():
    kid_bought = dataclasses.replace(bought(subject=("kid", "kid")), source_id="s:2")
    with TestPipeline() as p:
        out = (p | beam.Create([(X, KID_PURCHASED), (kid_bought, KID_PURCHASED)])
               | SynonymPairs(lexicon=BrokenLexicon("boy")))
        assert_that(out.examples | beam.Map(lambda e: (e.source_id, e.hypothesis)),
                    equal_to([("s:2", "The kid purchased a car.")]))
        assert_that(out.dead | beam.Map(dead_fields), equal_to([(
            "test", "s:1", "synonym_pairs", "LookupError", "corrupt entry for 'boy'",
            "The boy bought a car. ||| The kid purchased a car.")]), label="dead")


def test_a_failing_synonym_lookup_is_that_sentences_dead_letter():
    kid_bought = dataclasses.replace(bought(subject=("kid", "kid")), source_id="s:2")
    with TestPipeline() as p:
        out = (p | beam.Create([X, kid_bought])
               | SynonymSubstitution(SynonymOptions(seed=7), lexicon=BrokenLexicon("boy")))
        assert_that(out.examples | beam.Map(lambda e: (e.source_id, e.hypothesis)),
                    equal_to([("s:2", "The kid bought an automobile.")]))
        assert_that(out.dead | beam.Map(dead_fields), equal_to([(
            "test", "s:1", "synonym_substitution", "LookupError", "corrupt entry for 'boy'",
            "The boy bought a car.")]), label="dead")


def test_synonym_substitution_transform():
    with TestPipeline() as p:
        out = p | beam.Create([X]) | SynonymSubstitution(SynonymOptions(seed=7), lexicon=LEXICON)
        assert_that(out.examples | beam.Map(summary), equal_to([(
            "The boy bought a car.", "The boy bought an automobile.", "synonym", "augment:synonym:wordnet",
            [("boy", "nsubj", 1), ("automobile", "dobj", 1)])]))
