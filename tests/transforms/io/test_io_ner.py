"""CoNLL-2003 and GMB readers: sentence blocks, IOB1/IOB2 tags normalised to BIO."""
from pathlib import Path

import pytest

import entailgen
from entailgen.schemas.sources import NerSentence
from entailgen.transforms.io.base import Reject
from entailgen.transforms.io.ner import read_conll2003, read_gmb, to_bio

SAMPLES = Path(entailgen.__file__).parent / "samples"


def test_iob1_becomes_bio_and_iob2_is_kept():
    # IOB1: I- opens an entity unless it continues one of the same type; B- only splits adjacent same-type ones.
    assert to_bio(["I-PER", "I-PER", "B-PER", "O", "I-LOC", "I-ORG"]) == ["B-PER", "I-PER", "B-PER", "O", "B-LOC",
                                                                           "B-ORG"]
    assert to_bio(["B-geo", "I-geo", "O", "B-per"]) == ["B-geo", "I-geo", "O", "B-per"]
    with pytest.raises(Reject, match="E-PER"):
        to_bio(["E-PER"])


def test_conll_blocks_skip_docstart_and_keep_line_of_first_token():
    lines = [b"-DOCSTART- -X- -X- O\n", b"\n", b"EU NNP I-NP I-ORG\n", b"rejects VBZ I-VP O\n",
             b"German JJ I-NP I-MISC\n", b"\n", b"\n", b"Peter NNP I-NP I-PER\n", b"Blackburn NNP I-NP I-PER\n"]
    assert list(read_conll2003(lines, "c.txt")) == [
        NerSentence("c.txt:3", "c.txt", ["EU", "rejects", "German"], ["B-ORG", "O", "B-MISC"], ["NNP", "VBZ", "JJ"]),
        NerSentence("c.txt:8", "c.txt", ["Peter", "Blackburn"], ["B-PER", "I-PER"], ["NNP", "NNP"]),
    ]


def test_conll_sample_rice_and_the_netherlands():
    with open(SAMPLES / "conll2003.txt", "rb") as f:
        sentences = list(read_conll2003(f, "conll2003.txt"))
    assert len(sentences) == 42 and all(isinstance(s, NerSentence) for s in sentences)
    rice = next(s for s in sentences if s.tokens[:3] == ["Ms.", "Rice", "said"])
    assert rice.tokens[:6] == ["Ms.", "Rice", "said", "the", "United", "States"]
    assert rice.tags[:6] == ["O", "B-PER", "O", "O", "B-LOC", "I-LOC"]
    dutch = next(s for s in sentences if "Netherlands" in s.tokens)
    i = dutch.tokens.index("Netherlands")
    assert dutch.tokens[i - 1:i + 1] == ["The", "Netherlands"] and dutch.tags[i - 1:i + 1] == ["B-LOC", "I-LOC"]


def test_gmb_csv_groups_rows_by_sentence_marker():
    lines = [b"Sentence #,Word,POS,Tag\n", b"Sentence: 1,Thousands,NNS,O\n", b",of,IN,O\n", b",London,NNP,B-geo\n",
             b"Sentence: 2,Rome,NNP,I-geo\n", b',",",",",O\n', b",Italy,NNP,B-gpe\n"]
    assert list(read_gmb(lines, "g.csv")) == [
        NerSentence("g.csv:2", "g.csv", ["Thousands", "of", "London"], ["O", "O", "B-geo"], ["NNS", "IN", "NNP"]),
        NerSentence("g.csv:5", "g.csv", ["Rome", ",", "Italy"], ["B-geo", "O", "B-gpe"], ["NNP", ",", "NNP"]),
    ]


def test_gmb_header_with_byte_order_mark_is_no_unit():
    out = list(read_gmb([b"\xef\xbb\xbfSentence #,Word,POS,Tag\n", b"Sentence: 1,Hi,UH,O\n"], "g.csv"))
    assert out == [NerSentence("g.csv:2", "g.csv", ["Hi"], ["O"], ["UH"])]


def test_gmb_header_columns_by_name_and_repeated_sentence_ids():
    # ner.csv-style: more columns, the sentence id on every row
    lines = [b"id,word,pos,sentence_idx,tag\n", b"1,Obama,NNP,1,B-per\n", b"2,spoke,VBD,1,O\n", b"3,Iraq,NNP,2,B-geo\n"]
    out = list(read_gmb(lines, "ner.csv"))
    assert [(s.source_id, s.tokens, s.tags) for s in out] == [
        ("ner.csv:2", ["Obama", "spoke"], ["B-per", "O"]), ("ner.csv:4", ["Iraq"], ["B-geo"])]


def test_gmb_sample():
    with open(SAMPLES / "gmb.csv", "rb") as f:
        sentences = list(read_gmb(f, "gmb.csv"))
    assert len(sentences) == 10
    assert sentences[1].tokens[:4] == ["The", "World", "Health", "Organization"]
    assert sentences[1].tags[:4] == ["O", "B-org", "I-org", "I-org"]
