"""Report statistics on hand-made rows: exact label balance by facet, lengths, dead-letter reasons; seeded sampling."""
import random

import pytest

from entailgen.dataset.report.sample import PURPOSE, example_group, sample_rows
from entailgen.dataset.report.stats import dataset_stats, label_totals
from entailgen.schemas.arrow import to_row
from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ArcExample, Arc, LabelledArc, ParsedSentence, RtePair, Token, dead_letter


def arc(head, child, rel, head_lemma, child_lemma, entailed):
    return LabelledArc(head, child, rel, head_lemma, child_lemma, entailed)


# Word swap of "The old man gave the young boy a book." (Goyal & Durrett 2020 §5.3, as in transforms/augment/word_swap):
# give->man, give->boy, give->book stay entailed, man->young and boy->old are new arcs, so not entailed.
PREMISE = "The old man gave the young boy a book."
SWAPPED = ArcExample(
    "ws1", PREMISE, "The young man gave the old boy a book.", "The young man gave the old boy a book .".split(),
    [arc(3, 2, "nsubj", "give", "man", 1), arc(2, 1, "amod", "man", "young", 0), arc(3, 6, "dative", "give", "boy", 1),
     arc(6, 5, "amod", "boy", "old", 0), arc(3, 8, "dobj", "give", "book", 1)],
    "word_swap", "word_swap", "text.txt", "text.txt:1", split="train")
GOLD = ArcExample(
    "g1", PREMISE, "An old man handed a book to the young boy.", "An old man handed a book to the young boy .".split(),
    [arc(3, 2, "nsubj", "hand", "man", 1), arc(2, 1, "amod", "man", "old", 1), arc(3, 5, "dobj", "hand", "book", 1),
     arc(3, 9, "prep:to", "hand", "boy", 1), arc(9, 8, "amod", "boy", "young", 1)],
    "gold", "gold", "text.txt", "text.txt:1", split="train")
BOTTOM = ArcExample(
    "b1", PREMISE, "The man gave a book.", "The man gave a book .".split(),
    [arc(2, 1, "nsubj", "give", "man", 1), arc(2, 4, "dobj", "give", "book", None)],
    "bottom", "beam", "text.txt", "text.txt:1", beam_rank=10, beam_score=-4.5, split="test")


def test_arc_examples_count_every_arc_label_by_split_kind_and_relation():
    stats = dataset_stats("ArcExample", [to_row(r) for r in (SWAPPED, GOLD, BOTTOM)])
    assert stats["rows"] == {"test": {"text.txt": 1}, "train": {"text.txt": 2}}
    assert stats["labels"]["kind"] == {"bottom": {"entailed": 1, "unlabelled": 1},
                                       "gold": {"entailed": 5},
                                       "word_swap": {"entailed": 3, "not-entailed": 2}}
    assert stats["labels"]["split"] == {"test": {"entailed": 1, "unlabelled": 1},
                                        "train": {"entailed": 8, "not-entailed": 2}}
    assert stats["labels"]["relation"] == {"amod": {"entailed": 2, "not-entailed": 2}, "dative": {"entailed": 1},
                                           "dobj": {"entailed": 2, "unlabelled": 1}, "nsubj": {"entailed": 3},
                                           "prep:to": {"entailed": 1}}
    assert "sentence label by kind" not in stats["labels"]  # arc-level rows have no sentence label
    assert label_totals(stats) == {"entailed": 9, "not-entailed": 2, "unlabelled": 1}
    # premise 9 words three times; hypotheses of 9, 10 and 5 words
    assert stats["lengths"] == {"hypothesis": {5: 1, 9: 1, 10: 1}, "premise": {9: 3}}


def test_sentence_level_labels_are_counted_by_kind():
    positive = ArcExample("p", PREMISE, PREMISE, PREMISE.split(), [], "identity", "gold", "t", "t:1", label=1,
                          split="train")
    negative = ArcExample("n", PREMISE, "A man.", ["A", "man", "."], [], "bottom", "beam", "t", "t:1", label=0,
                          split="train")
    stats = dataset_stats("ArcExample", [to_row(positive), to_row(negative)])
    assert stats["labels"]["sentence label by kind"] == {"bottom": {"not-entailed": 1}, "identity": {"entailed": 1}}


def test_recast_pairs_count_labels_by_phenomenon_template_and_kind():
    # Poliak 2020 ch. 3: NER "NP is a Label" and sentiment "Name liked the Item" recasts.
    ner = "Mike Tyson was born in Brooklyn."
    review = 'When asked about the movie, Liam said "I loved every minute of it."'
    pairs = [RtePair("1", ner, "Mike Tyson is a person", "entailed", "ner", "ner:is-a", "conll2003.txt", "c:1",
                     split="train"),
             RtePair("2", ner, "Mike Tyson is a location", "not-entailed", "ner", "ner:is-a", "conll2003.txt", "c:1",
                     split="train"),
             RtePair("3", review, "Liam liked the movie", "entailed", "sentiment", "sentiment:liked", "imdb.txt",
                     "i:1", split="dev"),
             RtePair("4", review, "Liam did not like the movie", "not-entailed", "sentiment", "sentiment:not-liked",
                     "imdb.txt", "i:1", split="dev")]
    stats = dataset_stats("RtePair", [to_row(p) for p in pairs])
    assert stats["labels"]["phenomenon"] == {"ner": {"entailed": 1, "not-entailed": 1},
                                             "sentiment": {"entailed": 1, "not-entailed": 1}}
    assert stats["labels"]["template"] == {"ner:is-a": {"entailed": 1, "not-entailed": 1},
                                           "sentiment:liked": {"entailed": 1},
                                           "sentiment:not-liked": {"not-entailed": 1}}
    assert stats["labels"]["kind"] == {"original": {"entailed": 2, "not-entailed": 2}}
    assert "3-way label by kind" not in stats["labels"]  # recast pairs have two-way labels only
    assert stats["rows"] == {"dev": {"imdb.txt": 2}, "train": {"conll2003.txt": 2}}
    assert stats["lengths"] == {"hypothesis": {4: 1, 5: 2, 6: 1}, "premise": {6: 2, 13: 2}}


def test_three_way_labels_of_nli_pairs_are_counted_beside_the_two_way_ones():
    # Steen et al. 2023: a dialogue phrase is prepended to the hypothesis and the label kept.
    original = RtePair("o", "A man plays a guitar.", "A man plays music.", "entailed", "nli", "original", "nli.jsonl",
                       "n:1", label3="entailment", split="train")
    pushed = RtePair("d", "A man plays a guitar.", "I think a man plays music.", "entailed", "nli",
                     "dialogue:hedging", "nli.jsonl", "n:1", label3="entailment", kind="dialogue", phrase="I think",
                     split="train")
    neutral = RtePair("n", "A man plays a guitar.", "A man plays a song he wrote.", "not-entailed", "nli", "original",
                      "nli.jsonl", "n:2", label3="neutral", split="train")
    stats = dataset_stats("RtePair", [to_row(p) for p in (original, pushed, neutral)])
    assert stats["labels"]["3-way label by kind"] == {"dialogue": {"entailment": 1},
                                                      "original": {"entailment": 1, "neutral": 1}}
    assert stats["labels"]["kind"] == {"dialogue": {"entailed": 1}, "original": {"entailed": 1, "not-entailed": 1}}


def test_parsed_sentences_count_arcs_by_relation_unlabelled_and_dead_letters_by_reason():
    tokens = [Token("Dogs", "dog", "NOUN", "NNS", "O", 1, "nsubj"),
              Token("bark", "bark", "VERB", "VBP", "O", -1, "ROOT"),
              Token("loudly", "loudly", "ADV", "RB", "O", 1, "advmod")]
    arcs = [Arc(1, 0, "nsubj", "bark", "dog"), Arc(1, 2, "advmod", "bark", "loudly")]
    sentence = ParsedSentence("s", "Dogs bark loudly", tokens, arcs, "spacy", "text.txt", "text.txt:1", split="train")
    dead = [dead_letter("text.txt", "text.txt:2", "read", "UnicodeDecodeError", "bad bytes", b"\xff"),
            dead_letter("text.txt", "text.txt:3", "read", "UnicodeDecodeError", "bad bytes", b"\xfe"),
            dead_letter("text.txt", "text.txt:4", "read", "TooLong", "4001 characters")]
    stats = dataset_stats("ParsedSentence", [to_row(sentence)], [to_row(d) for d in dead])
    assert stats["labels"] == {"relation": {"advmod": {"unlabelled": 1}, "nsubj": {"unlabelled": 1}}}
    assert stats["lengths"] == {"text": {3: 1}}
    assert stats["dead"] == {"read:TooLong": 1, "read:UnicodeDecodeError": 2}


def test_unknown_record_type_is_an_error():
    with pytest.raises(ValueError, match="DeadLetter"):
        dataset_stats("DeadLetter", [])


ROWS = [{"id": f"r{i}", "kind": kind} for i, kind in enumerate(["gold"] * 5 + ["bottom"] * 4 + ["word_swap"])]


def test_sample_keeps_the_lowest_seeded_draws_per_group_whatever_the_row_order():
    chosen = sample_rows(ROWS, seed=7, per_group=2, group=lambda r: r["kind"])
    draw = {r["id"]: seeded_rng(7, r["id"], PURPOSE).random() for r in ROWS}
    expected = [r for kind in ("bottom", "gold", "word_swap")
                for r in sorted((r for r in ROWS if r["kind"] == kind), key=lambda r: draw[r["id"]])[:2]]
    assert chosen == expected
    assert [r["kind"] for r in chosen] == ["bottom", "bottom", "gold", "gold", "word_swap"]
    shuffled = ROWS[:]
    random.Random(1).shuffle(shuffled)
    assert sample_rows(shuffled, seed=7, per_group=2, group=lambda r: r["kind"]) == chosen


def test_sample_depends_on_the_seed_and_can_be_empty():
    picks = {tuple(r["id"] for r in sample_rows(ROWS, seed, 1, lambda r: r["kind"])) for seed in range(6)}
    assert len(picks) > 1
    assert sample_rows(ROWS, 0, 0, lambda r: r["kind"]) == []


def test_examples_are_grouped_by_dae_kind_recast_phenomenon_and_parse_source():
    assert example_group("ArcExample")(to_row(SWAPPED)) == "word_swap"
    pair = RtePair("1", "p", "h", "entailed", "ner", "t", "s", "s:1", kind="dialogue", phrase="I think")
    assert example_group("RtePair")(to_row(pair)) == "ner / dialogue"
    assert example_group("ParsedSentence")({"source": "text.txt"}) == "text.txt"
