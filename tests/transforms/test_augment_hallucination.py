"""Hallucination: a span deleted from x makes the premise; arcs of x the premise lost are 0, the rest 1 (DAE §5.3)."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ArcExample, LabelledArc
from entailgen.transforms.augment.common import ReparsingAugment
from entailgen.transforms.augment.hallucination import (
    HallucinationOptions, delete_span, deletable_spans, hallucination, label_hallucination)
from entailgen.transforms.parser import ParserConfig
from hand_parses import OLD_MAN, labels, sentence

THE_MAN = [("The", "the", "DET", "DT", 1, "det"), ("man", "man", "NOUN", "NN", 2, "nsubj"),
           ("gave", "give", "VERB", "VBD", -1, "ROOT"), ("the", "the", "DET", "DT", 5, "det"),
           ("young", "young", "ADJ", "JJ", 5, "amod"), ("boy", "boy", "NOUN", "NN", 2, "dative"),
           ("a", "a", "DET", "DT", 7, "det"), ("book", "book", "NOUN", "NN", 2, "dobj"),
           (".", ".", "PUNCT", ".", 2, "punct")]


def test_deletable_spans_skip_the_root_and_bare_punctuation():
    x = sentence(OLD_MAN)
    assert deletable_spans(x, max_span=1) == [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]
    spans = deletable_spans(x, max_span=3)
    assert (0, 3) in spans and (6, 9) in spans and (7, 10) in spans
    assert not [s for s in spans if s[0] <= 3 < s[1]]  # "gave", the root, is never deleted
    assert (9, 10) not in spans


def test_delete_span_keeps_spacing_and_the_opening_capital():
    x = sentence(OLD_MAN)
    assert delete_span(x, 1, 2) == "The man gave the young boy a book."
    assert delete_span(x, 0, 2) == "Man gave the young boy a book."
    assert delete_span(x, 4, 7) == "The old man gave a book."


def test_arcs_the_premise_lost_are_not_entailed():
    x = sentence(OLD_MAN)
    example = label_hallucination(x, sentence(THE_MAN))
    assert (example.premise, example.hypothesis) == ("The man gave the young boy a book.", x.text)
    assert labels(example) == {("man", "old", "amod"): 0, ("give", "man", "nsubj"): 1, ("boy", "young", "amod"): 1,
                               ("give", "boy", "dative"): 1, ("give", "book", "dobj"): 1}
    assert (example.kind, example.generator) == ("hallucination", "augment:hallucination")


def test_an_arc_whose_attachment_changed_is_not_entailed_either(parse):
    # Deleting "on" keeps "mat", but the premise no longer says where the cat sat: sit -prep:on-> mat is 0.
    x = parse("The cat sat on the mat.")
    premise = parse(delete_span(x, 3, 4))
    assert premise.text == "The cat sat the mat."
    assert labels(label_hallucination(x, premise)) == {("sit", "cat", "nsubj"): 1, ("sit", "mat", "prep:on"): 0}


def test_span_choice_is_seeded():
    x = sentence(OLD_MAN)
    seen = []

    def reparse(text, origin, role):
        seen.append(text)
        return sentence(THE_MAN)

    for seed in (5, 5):
        hallucination(HallucinationOptions(seed=seed))(x, reparse)
    assert seen[0] == seen[1]
    for seed in range(20):
        hallucination(HallucinationOptions(seed=seed))(x, reparse)
    assert len(set(seen)) > 1


def test_sentence_with_only_its_root_gives_nothing():
    sing = sentence([("Sing", "sing", "VERB", "VB", -1, "ROOT"), ("!", "!", "PUNCT", ".", 0, "punct")])
    assert deletable_spans(sing) == []
    assert hallucination()(sing, lambda *_: None) is None


def test_hallucinate_transform(parse):
    x = parse("Birds sing.")  # one deletable span: "Birds"; "Sing." keeps no arc, so sing -nsubj-> bird is 0
    (arc,) = x.arcs
    expected = ArcExample(id=content_id("augment:hallucination", "Sing.", "Birds sing."), premise="Sing.",
                          hypothesis="Birds sing.", hypothesis_tokens=["Birds", "sing", "."],
                          arcs=[LabelledArc.of(arc, 0, in_premise=False)], kind="hallucination",
                          generator="augment:hallucination",
                          source="test", source_id="t:1")
    assert arc.key == ("sing", "bird", "nsubj")
    with TestPipeline() as p:
        out = p | beam.Create([x]) | ReparsingAugment(hallucination(HallucinationOptions(max_span=1)), ParserConfig())
        assert_that(out.examples, equal_to([expected]))
        assert_that(out.dead, equal_to([]), label="no dead")
