"""Dialogue phrases at arc level: a phrase before x, its own arcs and those joining it to x 1, x's arcs by d(x)."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import dead_letter
from entailgen.transforms.augment.common import ReparsingAugment, parser_reparse
from entailgen.transforms.augment.dialogue import DialoguePhrase
from entailgen.transforms.augment.dialogue_arcs import (
    DialogueArcsOptions, dialogue_arcs, label_dialogue, phrase_length, phrased_text, sentence_phrase)
from entailgen.transforms.parser import ParserConfig
from hand_parses import OLD_MAN, labels, sentence

X = "The old man gave the young boy a book."
THINK = DialogueArcsOptions(phrases=(DialoguePhrase("I think", "hedging"),))
# "I think" + the DAE paper's word-swap sentence, parsed as the parser parses it, except that this parse makes the boy
# gave's direct object where x has him its dative: a re-parse that changes one of x's own arcs.
I_THINK = [("I", "I", "PRON", "PRP", 1, "nsubj"), ("think", "think", "VERB", "VBP", -1, "ROOT"),
           ("the", "the", "DET", "DT", 4, "det"), ("old", "old", "ADJ", "JJ", 4, "amod"),
           ("man", "man", "NOUN", "NN", 5, "nsubj"), ("gave", "give", "VERB", "VBD", 1, "ccomp"),
           ("the", "the", "DET", "DT", 8, "det"), ("young", "young", "ADJ", "JJ", 8, "amod"),
           ("boy", "boy", "NOUN", "NN", 5, "dobj"), ("a", "a", "DET", "DT", 10, "det"),
           ("book", "book", "NOUN", "NN", 5, "dobj"), (".", ".", "PUNCT", ".", 1, "punct")]
# think->I and think->gave touch the phrase: 1 though d(x) has neither; gave->boy as dobj is not x's arc: 0.
I_THINK_LABELS = {("think", "i", "nsubj"): 1, ("think", "give", "ccomp"): 1, ("man", "old", "amod"): 1,
                  ("give", "man", "nsubj"): 1, ("boy", "young", "amod"): 1, ("give", "boy", "dobj"): 0,
                  ("give", "book", "dobj"): 1}


def test_the_phrase_is_joined_as_nli_dialogue_joins_it():
    x = sentence(OLD_MAN)
    assert phrased_text(x, THINK) == "I think the old man gave the young boy a book."
    love = DialogueArcsOptions(phrases=(DialoguePhrase("I love that!", "sentiment"),))
    assert phrased_text(x, love) == "I love that! The old man gave the young boy a book."  # a new sentence
    hussain = sentence([("Hussain", "Hussain", "PROPN", "NNP", 1, "nsubj"),
                        ("left", "leave", "VERB", "VBD", -1, "ROOT"), (".", ".", "PUNCT", ".", 1, "punct")])
    assert phrased_text(hussain, THINK) == "I think Hussain left."  # a name keeps its capital


def test_the_seed_picks_one_of_the_ten_phrases_per_sentence():
    x = sentence(OLD_MAN)
    assert [sentence_phrase(x, DialogueArcsOptions(seed=s)) for s in (0, 2, 5)] == [
        "I think", "I believe", "I like that!"]
    assert phrased_text(x) == phrased_text(x) == "I think the old man gave the young boy a book."
    assert len({sentence_phrase(x, DialogueArcsOptions(seed=s)) for s in range(40)}) >= 8


def test_phrase_length_counts_the_tokens_that_spell_the_phrase():
    tokens = sentence(I_THINK).tokens
    assert phrase_length("I think", tokens) == 2
    sure = sentence([(w, w, "X", "X", -1, "ROOT") for w in "Sure ! Here is what I know : Toro left".split()]).tokens
    assert phrase_length("Sure! Here is what I know:", sure) == 8


def test_label_dialogue_gives_the_phrase_its_arcs_and_judges_x_by_d_x():
    example = label_dialogue(sentence(OLD_MAN), sentence(I_THINK), THINK)
    assert (example.premise, example.hypothesis) == (X, "I think the old man gave the young boy a book.")
    assert labels(example) == I_THINK_LABELS
    # the lexical-match prediction stays what d(x) says: the phrase's arcs are not x's
    assert {a.key: a.in_premise for a in example.arcs}[("think", "i", "nsubj")] is False
    assert (example.kind, example.generator, example.source_id) == ("dialogue", "augment:dialogue", "s:1")


def test_unparseable_phrased_sentence_comes_back_as_its_dead_letter():
    dead = dead_letter("test", "s:1", "parse", "TooLong", "too long", "x")
    assert dialogue_arcs()(sentence(OLD_MAN), lambda *_: dead) == dead


def test_dialogue_arcs_with_the_real_parser(parse, parser):
    example = dialogue_arcs(THINK)(parse(X), parser_reparse(parser))
    assert example.hypothesis == "I think the old man gave the young boy a book."
    # the parser keeps the boy gave's dative, so every arc is 1: the phrase's two by the phrase, x's five by d(x)
    assert labels(example) == {("think", "i", "nsubj"): 1, ("think", "give", "ccomp"): 1, ("man", "old", "amod"): 1,
                               ("give", "man", "nsubj"): 1, ("boy", "young", "amod"): 1, ("give", "boy", "dative"): 1,
                               ("give", "book", "dobj"): 1}


def test_dialogue_arcs_transform(parse):
    x = parse(X)
    with TestPipeline() as p:
        out = p | beam.Create([x]) | ReparsingAugment(dialogue_arcs(), ParserConfig())
        assert_that(out.examples | beam.Map(lambda e: (e.premise, e.hypothesis, e.kind)), equal_to([
            (X, "I think the old man gave the young boy a book.", "dialogue")]))  # seed 0's phrase for x
        assert_that(out.dead, equal_to([]), label="no dead")
