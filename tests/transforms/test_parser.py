"""Parsing backends: spaCy through the Parse transform, and Stanza's Document conversion offline from CoNLL-U."""
import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.sources import SourceText
from entailgen.transforms.arcs import arc_keys
from entailgen.transforms.parser import Parser, ParserConfig, parse_units, stanza_tokens
from entailgen.transforms.parsing import Parse

# The DAE Figure 3 input in UD (as Stanza would parse it): "of" is a case marker on the nmod "Bluestar".
FIGURE3_CONLLU = """# text = can you people guarantee the liquidation of Bluestar ?
1	can	can	AUX	MD	_	4	aux	_	_
2	you	you	PRON	PRP	_	4	nsubj	_	_
3	people	people	NOUN	NNS	_	2	appos	_	_
4	guarantee	guarantee	VERB	VB	_	0	root	_	_
5	the	the	DET	DT	_	6	det	_	_
6	liquidation	liquidation	NOUN	NN	_	4	obj	_	_
7	of	of	ADP	IN	_	8	case	_	_
8	Bluestar	Bluestar	PROPN	NNP	_	6	nmod	_	SpaceAfter=No
9	?	?	PUNCT	.	_	4	punct	_	_

"""


def test_stanza_document_converts_to_tokens_and_enhanced_arcs():
    from stanza.utils.conll import CoNLL

    doc = CoNLL.conll2doc(input_str=FIGURE3_CONLLU)
    tokens = stanza_tokens(doc)
    assert [(t.text, t.head, t.dep) for t in tokens][:4] == [("can", 3, "aux"), ("you", 3, "nsubj"),
                                                              ("people", 1, "appos"), ("guarantee", -1, "root")]
    assert tokens[5].pos == "NOUN" and tokens[5].tag == "NN" and tokens[5].lemma == "liquidation"
    assert not tokens[7].space_after and tokens[6].space_after
    from entailgen.transforms.arcs import extract_arcs

    assert arc_keys(extract_arcs(tokens)) == {("guarantee", "you", "nsubj"), ("you", "people", "appos"),
                                               ("guarantee", "liquidation", "obj"),
                                               ("liquidation", "bluestar", "nmod:of")}


def test_two_sentence_stanza_document_keeps_heads_document_relative():
    from stanza.utils.conll import CoNLL

    two = FIGURE3_CONLLU + "1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"
    tokens = stanza_tokens(CoNLL.conll2doc(input_str=two))
    assert len(tokens) == 10 and (tokens[9].text, tokens[9].head) == ("Yes", -1)
    assert tokens[7].head == 5  # Bluestar -> liquidation, still inside the first sentence


def test_stanza_backend_needs_a_model_dir():
    with pytest.raises(ValueError, match="--parser-model"):
        Parser(ParserConfig(backend="stanza"))


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="unknown parser backend"):
        Parser(ParserConfig(backend="corenlp"))


def test_too_long_and_empty_texts_are_dead_letters(parser):
    long_parser = Parser.__new__(Parser)
    long_parser.__dict__.update(parser.__dict__, config=ParserConfig(max_tokens=3))
    units = [SourceText("Dogs bark loudly at night.", "t.txt", "t.txt:1"), SourceText("   ", "t.txt", "t.txt:2")]
    results = list(parse_units(long_parser, units))
    assert [(r.source_id, r.error_type) for r in results] == [("t.txt:1", "TooLong"), ("t.txt:2", "EmptyParse")]


def test_parse_transform_yields_one_output_per_unit():
    units = [SourceText("Cats sleep.", "t.txt", "t.txt:1"), SourceText("", "t.txt", "t.txt:2"),
             SourceText("Dogs bark.", "t.txt", "t.txt:3", role="gold")]
    with TestPipeline() as p:
        out = p | beam.Create(units) | Parse(ParserConfig(batch_size=2))
        assert_that(out.parsed | beam.Map(lambda s: (s.source_id, s.role, s.text, s.parser.startswith("spacy:"))),
                    equal_to([("t.txt:1", "text", "Cats sleep.", True), ("t.txt:3", "gold", "Dogs bark.", True)]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage)), equal_to([("t.txt:2", "parse")]),
                    label="dead")
