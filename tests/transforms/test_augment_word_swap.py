"""Word swap: same-POS words exchanged, arcs of x' kept from x labelled 1, changed arcs 0 (DAE §5.3)."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import dead_letter
from entailgen.transforms.augment.common import ReparsingAugment, parser_reparse, spaced_text
from entailgen.transforms.augment.word_swap import (
    WordSwapOptions, label_word_swap, swap_tokens, swap_words, swappable_pairs, word_swap)
from entailgen.transforms.parser import ParserConfig
from hand_parses import OLD_MAN, labels, sentence

YOUNG_MAN = [OLD_MAN[0], ("young", "young", "ADJ", "JJ", 2, "amod")] + OLD_MAN[2:5] + \
            [("old", "old", "ADJ", "JJ", 6, "amod")] + OLD_MAN[6:]
# The swapped sentence keeps give->man, give->boy, give->book; man->old and boy->young become man->young, boy->old.
SWAP_LABELS = {("man", "young", "amod"): 0, ("give", "man", "nsubj"): 1, ("boy", "old", "amod"): 0,
               ("give", "boy", "dative"): 1, ("give", "book", "dobj"): 1}
SWAP_ADJECTIVES = word_swap(WordSwapOptions(pos=frozenset({"ADJ"})))  # only old <-> young: the swap above


def test_swappable_pairs_share_a_pos_and_differ_in_word():
    assert swappable_pairs(sentence(OLD_MAN)) == [(1, 5), (2, 6), (2, 8), (6, 8)]
    assert swappable_pairs(sentence(OLD_MAN), frozenset({"ADJ"})) == [(1, 5)]


def test_swap_tokens_exchanges_words_and_keeps_spacing():
    assert spaced_text(swap_tokens(sentence(OLD_MAN).tokens, 1, 5)) == "The young man gave the old boy a book."
    assert spaced_text(swap_tokens(sentence(OLD_MAN).tokens, 6, 8)) == "The old man gave the young book a boy."


def test_swap_moves_the_capital_with_the_sentence_start():
    dogs = sentence([("Dogs", "dog", "NOUN", "NNS", 1, "nsubj"), ("chase", "chase", "VERB", "VBP", -1, "ROOT"),
                     ("cats", "cat", "NOUN", "NNS", 1, "dobj"), (".", ".", "PUNCT", ".", 1, "punct")])
    assert spaced_text(swap_tokens(dogs.tokens, 0, 2)) == "Cats chase dogs."
    john = sentence([("John", "John", "PROPN", "NNP", 1, "nsubj"), ("met", "meet", "VERB", "VBD", -1, "ROOT"),
                     ("Mary", "Mary", "PROPN", "NNP", 1, "dobj"), (".", ".", "PUNCT", ".", 1, "punct")])
    assert spaced_text(swap_tokens(john.tokens, 0, 2)) == "Mary met John."


def test_label_word_swap_keeps_shared_arcs_and_breaks_swapped_ones():
    x, swapped = sentence(OLD_MAN), sentence(YOUNG_MAN)
    example = label_word_swap(x, swapped)
    assert (example.premise, example.hypothesis) == ("The old man gave the young boy a book.",
                                                     "The young man gave the old boy a book.")
    assert labels(example) == SWAP_LABELS
    # labelled by membership in d(x), so the stored lexical-match prediction agrees with every label
    assert {a.key: a.in_premise for a in example.arcs} == {key: label == 1 for key, label in SWAP_LABELS.items()}
    assert (example.kind, example.generator, example.source_id) == ("word_swap", "augment:word_swap", "s:1")
    assert example.hypothesis_tokens == swapped.words


def test_sentence_without_a_swap_gives_nothing_and_is_not_reparsed():
    ran = sentence([("John", "John", "PROPN", "NNP", 1, "nsubj"), ("ran", "run", "VERB", "VBD", -1, "ROOT"),
                    (".", ".", "PUNCT", ".", 1, "punct")])

    def reparse(*_):
        raise AssertionError("nothing to re-parse")

    assert swap_words(ran) is None
    assert word_swap()(ran, reparse) is None


def test_unparseable_swap_comes_back_as_its_dead_letter():
    dead = dead_letter("test", "s:1", "parse", "TooLong", "too long", "x")
    assert word_swap()(sentence(OLD_MAN), lambda *_: dead) == dead


def test_seed_decides_the_swap():
    x = sentence(OLD_MAN)
    assert swap_words(x, WordSwapOptions(seed=3)) == "The old man gave the young book a boy."
    assert len({swap_words(x, WordSwapOptions(seed=s)) for s in range(20)}) > 1


def test_word_swap_with_the_real_parser(parse, parser):
    x = parse("The old man gave the young boy a book.")
    example = SWAP_ADJECTIVES(x, parser_reparse(parser))
    assert example.hypothesis == "The young man gave the old boy a book."
    assert labels(example) == SWAP_LABELS


def test_word_swap_transform(parse):
    x = parse("The old man gave the young boy a book.")
    no_swap = parse("John ran.")
    with TestPipeline() as p:
        out = p | beam.Create([x, no_swap]) | ReparsingAugment(SWAP_ADJECTIVES, ParserConfig())
        assert_that(out.examples | beam.Map(lambda e: (e.premise, e.hypothesis, e.kind, labels(e))), equal_to([(
            "The old man gave the young boy a book.", "The young man gave the old boy a book.", "word_swap",
            SWAP_LABELS)]))
        assert_that(out.dead, equal_to([]), label="no dead")


def test_a_swap_the_parser_rejects_leaves_as_a_dead_letter(parse):
    x = parse("The old man gave the young boy a book.")
    with TestPipeline() as p:
        out = p | beam.Create([x]) | ReparsingAugment(SWAP_ADJECTIVES, ParserConfig(max_tokens=5))
        assert_that(out.examples, equal_to([]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type, d.raw)),
                    equal_to([("t:1", "parse", "TooLong", "The young man gave the old boy a book.")]), label="dead")
