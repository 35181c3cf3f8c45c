"""Choosing h* among round trips: the similarity band, skip reasons, duplicates, the ParaNMT export read back by dae."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ScoredParaphrase, Skipped, dead_letter
from entailgen.schemas.sources import NliPair, ParaphrasePair, SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.io.paranmt import read_paraphrase_tsv
from entailgen.transforms.round_trip import (ChooseOptions, ChooseParaphrases, SimilarityBand, UniqueSentences,
                                             choose_paraphrase, keep_first, paranmt_text, source_sentence)

X = SourceText("The price of coffee has doubled in two years.", "t.txt", "t.txt:1", "source")
BAND = SimilarityBand(0.75, 0.99)


def test_h_star_is_the_most_similar_candidate_inside_the_band():
    scored = [("The price of coffee has doubled at two years.", 0.998),  # near copy: above the band
              ("The price of coffee has folded in two years.", 0.805),
              ("Coffee's price doubled in two years.", 0.93),
              ("The prize of coffee has dubbed.", 0.51)]  # garbage: below it
    out = choose_paraphrase(X, scored, "apertium+minilm", BAND)
    assert out == ScoredParaphrase(content_id(X.text, "Coffee's price doubled in two years."), X.text,
                                   "Coffee's price doubled in two years.", 0.93, "apertium+minilm", "t.txt", "t.txt:1")


def test_band_edges_are_inside_and_ties_go_to_the_first_text():
    scored = [("b  variant", 0.75), ("a variant", 0.75), ("c variant", 0.99)]
    assert choose_paraphrase(X, scored, "g", BAND).gold == "c variant"
    assert choose_paraphrase(X, scored[:2], "g", BAND).gold == "a variant"


def test_copies_of_x_are_not_candidates():
    scored = [(" The price of coffee  has doubled in two years. ", 1.0), ("Coffee got dearer.", 0.8)]
    assert choose_paraphrase(X, scored, "g", BAND).gold == "Coffee got dearer."


def test_skip_reasons_say_why_no_h_star():
    def reason(scored):
        return choose_paraphrase(X, scored, "g", BAND).reason

    assert reason([]) == "NoRoundTrip"
    assert reason([(X.text, 1.0), ("", 0.9)]) == "NoRoundTrip"
    assert reason([("The price of coffee has doubled at two years.", 0.998), ("Garbage words.", 0.2)]) == "NearCopy"
    assert reason([("Garbage words.", 0.2), ("More garbage.", 0.7)]) == "BelowMinSimilarity"
    assert choose_paraphrase(X, [], "g", BAND) == Skipped("t.txt", "t.txt:1", "paraphrase", "NoRoundTrip")


def test_duplicate_sentences_keep_the_first_source_and_skip_the_rest():
    units = [SourceText("Same.", "b.txt", "b.txt:1"), SourceText("Same.", "a.txt", "a.txt:9"),
             SourceText("Same.", "a.txt", "a.txt:10")]
    assert keep_first(units) == [SourceText("Same.", "a.txt", "a.txt:10"),
                                 Skipped("a.txt", "a.txt:9", "paraphrase", "DuplicateText"),
                                 Skipped("b.txt", "b.txt:1", "paraphrase", "DuplicateText")]


def test_x_is_the_first_text_of_any_record_with_whitespace_collapsed():
    assert source_sentence(SourceText("a\tline  here ", "t.txt", "t.txt:1")) == \
        SourceText("a line here", "t.txt", "t.txt:1", "source")
    assert source_sentence(ParaphrasePair("p:1", "p.tsv", "x text", "gold text")).text == "x text"
    assert source_sentence(NliPair("n:1", "n.jsonl", "A premise.", "A hypothesis.", "neutral")).text == "A premise."


def test_paranmt_export_is_sorted_and_dae_reads_it_back():
    pairs = [ScoredParaphrase("2", "B x.", "B h.", 0.91234, "g", "t", "t:2"),
             ScoredParaphrase("1", "A x.", "A h.", 0.8, "g", "t", "t:1")]
    text = paranmt_text(pairs)
    assert text == "A x.\tA h.\t0.8000\nB x.\tB h.\t0.9123\n"
    read = list(read_paraphrase_tsv([line.encode() for line in text.splitlines(keepends=True)], "paranmt.tsv"))
    assert [(p.text, p.gold) for p in read] == [("A x.", "A h."), ("B x.", "B h.")]


def test_choose_paraphrases_gives_one_outcome_per_x_and_none_for_dead_generation():
    xs = [SourceText("Tom saw the cat.", "t", "t:1", "source"), SourceText("It rained.", "t", "t:2", "source"),
          SourceText("Nobody came.", "t", "t:3", "source")]
    candidates = [Candidate("t:1", "Tom saw a cat.", 1, -0.1, "bart"),
                  Candidate("t:1", "Tom sees dogs.", 2, -0.5, "bart"),
                  Candidate("t:2", "Dogs bark loudly.", 1, -0.2, "bart")]
    dead = [dead_letter("t", "t:3", "generate", "Boom", "failed", "Nobody came.")]
    with TestPipeline() as p:
        out = ({"x": p | "X" >> beam.Create(xs), "candidates": p | "C" >> beam.Create(candidates),
                "dead": p | "D" >> beam.Create(dead)}
               | ChooseParaphrases(ChooseOptions(SimilarityBand(0.5, 0.95), rescore=True, encoder=None)))
        # rescored by unigram F1: "Tom saw a cat." 0.75 beats "Tom sees dogs." 0.25 (beam order would agree here)
        assert_that(out.pairs, equal_to([ScoredParaphrase(content_id("Tom saw the cat.", "Tom saw a cat."),
                                                          "Tom saw the cat.", "Tom saw a cat.", 0.75,
                                                          "bart+lexical", "t", "t:1")]), label="pairs")
        assert_that(out.skipped, equal_to([Skipped("t", "t:2", "paraphrase", "BelowMinSimilarity")]),
                    label="skipped")


def test_unique_sentences_transform():
    records = [SourceText("One.", "t", "t:1"), SourceText("One. ", "t", "t:2"), SourceText("Two.", "t", "t:3")]
    with TestPipeline() as p:
        out = p | beam.Create(records) | UniqueSentences()
        assert_that(out.xs, equal_to([SourceText("One.", "t", "t:1", "source"),
                                      SourceText("Two.", "t", "t:3", "source")]), label="xs")
        assert_that(out.skipped, equal_to([Skipped("t", "t:2", "paraphrase", "DuplicateText")]), label="skipped")
