"""Arc rows read in their document's context (transforms.context), worked by hand: the premise packed with the
sentences holding the hypothesis's words, and DAE §4 kept with respect to the whole premise: a 0 arc a context
sentence has becomes 1, nothing else moves."""
from collections import Counter

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import ArcExample, LabelledArc
from entailgen.schemas.sources import Document
from entailgen.transforms.context import SUPPORTED, ContextConfig, DocumentSentences, InContext, in_context
from entailgen.transforms.parser import ParserConfig

S0, S1, S2 = "Ana Ribeiro plays for Porto.", "The weather was mild.", "Ribeiro scored a late goal against Braga."
DOCUMENT = DocumentSentences("d1", (S0, S1, S2), (
    frozenset({("play", "ribeiro", "nsubj"), ("play", "porto", "nmod:for")}), frozenset(),
    frozenset({("score", "ribeiro", "nsubj"), ("score", "goal", "dobj"), ("goal", "late", "amod")})))
HYPOTHESIS = "Ribeiro scored a goal."  # content words: ribeiro, scored, goal (S0 holds 1, S1 0, S2 3)


def row(premise=S0):
    arcs = [LabelledArc(1, 0, "nsubj", "score", "ribeiro", 0),  # not in d(x): 0; S2 has it
            LabelledArc(1, 3, "dobj", "score", "goal", 0),  # not in d(x): 0; S2 has it
            LabelledArc(1, 3, "nmod:for", "score", "porto", 0),  # in no sentence: stays 0
            LabelledArc(3, 2, "amod", "goal", "late", None)]  # unlabelled (in d(h1) only): stays unlabelled
    return ArcExample("r1", premise, HYPOTHESIS, ["Ribeiro", "scored", "a", "goal", "."], arcs, "bottom", "apertium",
                      "pairs.tsv", "pairs.tsv:1")


def labels(example):
    return [a.entailed for a in example.arcs]


def test_a_premise_packed_with_the_sentence_that_supports_two_arcs_labels_them_entailed():
    """96 words: every sentence fits, in document order; S2's arcs make nsubj and dobj 1; 'porto' is no arc of the
    context (S0's own arcs are x's, which DAE §4 already read), the unlabelled arc stays unlabelled."""
    counts = Counter()
    placed = in_context(row(), DOCUMENT, 96, counts)
    assert placed.premise == f"{S0} {S1} {S2}"
    assert labels(placed) == [1, 1, 0, None] and counts[SUPPORTED] == 2
    assert placed.document_id == "d1" and placed.hypothesis == HYPOTHESIS and placed.id == "r1"


def test_the_context_is_what_fits_and_a_sentence_left_out_supports_nothing():
    # 16 words, 4 the hypothesis's: x (5) and then S2 (7, the most relevant) fit; S1 (4) would not
    placed = in_context(row(), DOCUMENT, 16)
    assert placed.premise == f"{S0} {S2}" and labels(placed) == [1, 1, 0, None]
    # 9 words: x alone; its labels as DAE §4 gave them
    alone = in_context(row(), DOCUMENT, 9)
    assert alone.premise == S0 and labels(alone) == [0, 0, 0, None]


def test_the_ptransform_places_rows_whose_premise_a_document_holds_and_keeps_the_others():
    """Through Beam with the real parser: the row on S0 gets the document's context (and its id), the row on a
    sentence no document holds comes out as it went in."""
    text = f"{S0} {S1}\n\n{S2}"
    stray = row("A sentence no document holds.")
    with TestPipeline() as p:
        documents = p | "Docs" >> beam.Create([Document("docs.jsonl:1", "docs.jsonl", text)])
        rows = p | "Rows" >> beam.Create([row(), stray])
        out = rows | InContext(ContextConfig("docs.jsonl"), documents, ParserConfig())
        assert_that(out | beam.Map(lambda r: (r.premise, r.document_id is not None)),
                    equal_to([(f"{S0} {S1} {S2}", True), ("A sentence no document holds.", False)]))
