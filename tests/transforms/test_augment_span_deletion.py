"""Span deletion: a span of x's words cut, arcs of x' kept from x labelled 1, arcs the cut re-joined 0."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import dead_letter
from entailgen.transforms.augment.common import ReparsingAugment, parser_reparse, spaced_text
from entailgen.transforms.augment.span_deletion import (
    SpanDeletionOptions, cut_tokens, cuttable_spans, cut_span, label_span_deletion, span_deletion)
from entailgen.transforms.parser import ParserConfig
from hand_parses import labels, sentence

# A Falke et al.-style cut (rank19's summarisers drop a span and re-join the rest), parsed as the parser parses it.
NIMES = [("Seven", "seven", "NUM", "CD", 1, "nummod"), ("games", "game", "NOUN", "NNS", 5, "nsubjpass"),
         ("involving", "involve", "VERB", "VBG", 1, "acl"), ("Nimes", "nime", "NOUN", "NNS", 2, "dobj"),
         ("were", "be", "AUX", "VBD", 5, "auxpass"), ("investigated", "investigate", "VERB", "VBN", -1, "ROOT"),
         ("after", "after", "SCONJ", "IN", 9, "mark"), ("Conrad", "Conrad", "PROPN", "NNP", 9, "nsubjpass"),
         ("was", "be", "AUX", "VBD", 9, "auxpass"), ("arrested", "arrest", "VERB", "VBN", 5, "advcl"),
         (".", ".", "PUNCT", ".", 5, "punct")]
CUT = NIMES[:5] + [("arrested", "arrest", "VERB", "VBN", -1, "ROOT"), (".", ".", "PUNCT", ".", 5, "punct")]
# Cutting "investigated after Conrad was": games' number, its clause and Nimes stay; games becomes arrested's subject.
CUT_LABELS = {("game", "seven", "nummod"): 1, ("game", "involve", "acl"): 1, ("involve", "nime", "dobj"): 1,
              ("arrest", "game", "nsubjpass"): 0}
HUSSAIN = [("Hussain", "Hussain", "PROPN", "NNP", 5, "nsubjpass"), (",", ",", "PUNCT", ",", 0, "punct"),
           ("24", "24", "NUM", "CD", 0, "appos"), (",", ",", "PUNCT", ",", 0, "punct"),
           ("was", "be", "AUX", "VBD", 5, "auxpass"), ("hanged", "hang", "VERB", "VBN", -1, "ROOT"),
           ("on", "on", "ADP", "IN", 5, "prep"), ("Thursday", "Thursday", "PROPN", "NNP", 6, "pobj"),
           (".", ".", "PUNCT", ".", 5, "punct")]
# Its eight cuts (six words: two or three cut): none starts or ends on a comma, leaves one first or two in a row.
HUSSAIN_CUTS = {(0, 5): "Hanged on Thursday.", (2, 5): "Hussain, hanged on Thursday.",
                (2, 6): "Hussain, on Thursday.", (4, 6): "Hussain, 24, on Thursday.", (4, 7): "Hussain, 24, Thursday.",
                (5, 7): "Hussain, 24, was Thursday.", (5, 8): "Hussain, 24, was.", (6, 8): "Hussain, 24, was hanged."}


def test_cuttable_spans_hold_two_words_to_half_the_sentence():
    spans = cuttable_spans(sentence(NIMES))  # ten words: cuts of 2 to 5 words, the closing "." never cut
    assert len(spans) == 9 + 8 + 7 + 6
    assert spans[:4] == [(0, 2), (0, 3), (0, 4), (0, 5)] and spans[-1] == (8, 10)
    assert (5, 9) in spans and (5, 11) not in spans and (0, 6) not in spans


def test_cuttable_spans_start_and_end_on_a_word_and_strand_no_punctuation():
    # (0, 3) would leave ", was hanged ..." and (2, 4) end on a comma; (6, 8) keeps the "." and takes no space before it
    assert cuttable_spans(sentence(HUSSAIN)) == list(HUSSAIN_CUTS)
    assert cuttable_spans(sentence(HUSSAIN), SpanDeletionOptions(max_share=0.25)) == []


def test_cut_tokens_rejoins_the_rest_and_moves_the_capital():
    tokens = sentence(NIMES).tokens
    assert spaced_text(cut_tokens(tokens, 5, 9)) == "Seven games involving Nimes were arrested."
    assert spaced_text(cut_tokens(tokens, 0, 2)) == "Involving Nimes were investigated after Conrad was arrested."
    assert {span: spaced_text(cut_tokens(sentence(HUSSAIN).tokens, *span)) for span in HUSSAIN_CUTS} == HUSSAIN_CUTS


def test_label_span_deletion_keeps_intact_arcs_and_breaks_rejoined_ones():
    x, cut = sentence(NIMES), sentence(CUT)
    example = label_span_deletion(x, cut)
    assert (example.premise, example.hypothesis) == (
        "Seven games involving Nimes were investigated after Conrad was arrested.",
        "Seven games involving Nimes were arrested.")
    assert labels(example) == CUT_LABELS
    assert {a.key: a.in_premise for a in example.arcs} == {key: label == 1 for key, label in CUT_LABELS.items()}
    assert (example.kind, example.generator, example.source_id) == ("span_deletion", "augment:span_deletion", "s:1")


def test_a_sentence_too_short_to_cut_gives_nothing_and_is_not_reparsed():
    ran = sentence([("John", "John", "PROPN", "NNP", 1, "nsubj"), ("ran", "run", "VERB", "VBD", -1, "ROOT"),
                    ("home", "home", "ADV", "RB", 1, "advmod"), (".", ".", "PUNCT", ".", 1, "punct")])

    def reparse(*_):
        raise AssertionError("nothing to re-parse")

    assert cuttable_spans(ran) == [] and cut_span(ran) is None
    assert span_deletion()(ran, reparse) is None


def test_unparseable_cut_comes_back_as_its_dead_letter():
    dead = dead_letter("test", "s:1", "parse", "TooLong", "too long", "x")
    assert span_deletion()(sentence(NIMES), lambda *_: dead) == dead


def test_seed_decides_the_cut():
    x = sentence(HUSSAIN)
    assert cut_span(x) == "Hussain, on Thursday."
    assert cut_span(x, SpanDeletionOptions(seed=1)) == "Hussain, 24, was Thursday."
    assert {cut_span(x, SpanDeletionOptions(seed=s)) for s in range(40)} == set(HUSSAIN_CUTS.values())


def test_later_cuts_are_the_other_texts_in_a_seeded_order():
    x = sentence(HUSSAIN)
    cuts = [cut_span(x, SpanDeletionOptions(cut=c)) for c in range(len(HUSSAIN_CUTS) + 1)]
    assert cuts[0] == cut_span(x) == "Hussain, on Thursday."  # cut 0 is the one-cut run's own
    assert cuts[1:3] == ["Hussain, 24, Thursday.", "Hanged on Thursday."]
    assert set(cuts[:-1]) == set(HUSSAIN_CUTS.values()) and cuts[-1] is None  # eight spans, eight cuts, then none


def test_cuts_that_spell_the_same_text_are_one_cut():
    dogs = sentence([("Dogs", "dog", "NOUN", "NNS", 1, "nsubj"), ("bark", "bark", "VERB", "VBP", -1, "ROOT"),
                     ("and", "and", "CCONJ", "CC", 1, "cc"), ("dogs", "dog", "NOUN", "NNS", 4, "nsubj"),
                     ("bark", "bark", "VERB", "VBP", 1, "conj"), ("loudly", "loudly", "ADV", "RB", 4, "advmod"),
                     (".", ".", "PUNCT", ".", 1, "punct")])
    # nine spans; (0, 3) "Dogs bark and", (1, 4) "bark and dogs" and (2, 5) "and dogs bark" all leave "Dogs bark loudly."
    assert len(cuttable_spans(dogs)) == 9
    cuts = [cut_span(dogs, SpanDeletionOptions(cut=c)) for c in range(8)]
    assert cuts[-1] is None and len(set(cuts[:-1])) == 7 and cuts.count("Dogs bark loudly.") == 1


def test_span_deletion_with_the_real_parser(parse, parser):
    x = parse("Seven games involving Nimes were investigated after Conrad was arrested.")
    only_the_clause = SpanDeletionOptions(min_words=4, max_share=0.4)  # 4-word cuts: (5, 9) among seven
    assert (5, 9) in cuttable_spans(x, only_the_clause)
    example = label_span_deletion(x, parser_reparse(parser)(spaced_text(cut_tokens(x.tokens, 5, 9)), x, "cut"))
    assert example.hypothesis == "Seven games involving Nimes were arrested."
    assert labels(example) == CUT_LABELS


def test_span_deletion_transform(parse):
    x = parse("Seven games involving Nimes were investigated after Conrad was arrested.")
    short = parse("John ran.")
    with TestPipeline() as p:
        out = p | beam.Create([x, short]) | ReparsingAugment(span_deletion(), ParserConfig())
        assert_that(out.examples | beam.Map(lambda e: (e.premise, e.hypothesis, e.kind)), equal_to([(
            "Seven games involving Nimes were investigated after Conrad was arrested.",
            "Seven games involving Nimes were was arrested.", "span_deletion")]))  # seed 0 cuts (5, 8)
        assert_that(out.dead, equal_to([]), label="no dead")
