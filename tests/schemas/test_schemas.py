"""Record schemas: arrow and JSON schemas follow the dataclasses; rows round-trip through Parquet and JSON."""
import io
import json

import jsonschema
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from entailgen.schemas.arrow import arrow_schema, from_row, json_line, json_schema, to_row
from entailgen.schemas.ids import content_id, seeded_rng, unit_hash
from entailgen.schemas.records import (Arc, ArcExample, DeadLetter, LabelledArc, ParsedSentence, RtePair, Token,
                                       dead_letter)

TOKENS = [Token("Cats", "cat", "NOUN", "NNS", "O", 1, "nsubj"), Token("sleep", "sleep", "VERB", "VBP", "O", -1, "ROOT",
                                                                        False)]
SENTENCE = ParsedSentence("s1", "Cats sleep", TOKENS, [Arc(1, 0, "nsubj", "sleep", "cat")], "spacy:x", "a.txt", "a.txt:1")
EXAMPLE = ArcExample("e1", "Cats sleep.", "Cats sleep", ["Cats", "sleep"],
                     [LabelledArc(1, 0, "nsubj", "sleep", "cat", 1), LabelledArc(0, 1, "x", "cat", "sleep", None)],
                     "bottom", "apertium", "a.tsv", "a.tsv:1", beam_rank=10, beam_score=-1.5, split="train")
PAIR = RtePair("p1", "Rice said so.", "Rice is a person", "entailed", "ner", "ner/is-a", "c.txt", "c.txt:3")
DEAD = dead_letter("a.tsv", "a.tsv:7", "read", "MissingField", "no tab", b"\xffbroken")


def test_arrow_schema_nests_arcs_as_list_of_struct():
    schema = arrow_schema(ArcExample)
    arcs = schema.field("arcs").type
    assert pa.types.is_list(arcs) and pa.types.is_struct(arcs.value_type)
    assert arcs.value_type.field("entailed").type == pa.int64()
    assert arcs.value_type.field("entailed").nullable
    assert not schema.field("premise").nullable
    assert schema.field("beam_rank").nullable


@pytest.mark.parametrize("record", [SENTENCE, EXAMPLE, PAIR, DEAD])
def test_rows_round_trip_through_parquet(record):
    cls = type(record)
    table = pa.Table.from_pylist([to_row(record)], schema=arrow_schema(cls))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    (row,) = pq.read_table(io.BytesIO(buf.getvalue())).to_pylist()
    assert from_row(cls, row) == record


@pytest.mark.parametrize("record", [SENTENCE, EXAMPLE, PAIR, DEAD])
def test_json_lines_validate_against_exported_json_schema(record):
    row = json.loads(json_line(record))
    jsonschema.validate(row, json_schema(type(record).__name__))
    assert from_row(type(record), row) == record


def test_json_schema_rejects_a_wrong_row():
    row = json.loads(json_line(PAIR))
    row["label"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(row, json_schema("RtePair"))


def test_unknown_record_type_is_a_clear_error():
    with pytest.raises(KeyError, match="known: ArcExample"):
        json_schema("Nope")


def test_dead_letter_decodes_and_truncates_raw_input():
    assert DEAD.raw == "\ufffdbroken"
    assert len(dead_letter("s", "s:1", "read", "TooLong", "m", "x" * 5000).raw) == 1000
    assert isinstance(DEAD, DeadLetter) and DEAD.id == content_id("a.tsv", "a.tsv:7", "read", "MissingField", "no tab",
                                                                 "\ufffdbroken")


def test_ids_and_randomness_are_stable_and_seeded():
    assert (content_id("a", 1), content_id("a", 2)) == ("839e11a421d370be", "74a9917ed5026c89")
    assert 0 <= unit_hash("x") < 1
    assert seeded_rng(1, "r").random() == 0.2195912275026417
    assert seeded_rng(1, "r").random() != seeded_rng(2, "r").random()
    assert seeded_rng(1, "r").random() != seeded_rng(1, "q").random()


def test_arc_key_compares_by_lemma_and_relation():
    assert Arc(3, 5, "dobj", "Guarantee", "liquidation").key == ("guarantee", "liquidation", "dobj")
    assert LabelledArc.of(Arc(0, 1, "nsubj", "a", "b"), 0).key == ("a", "b", "nsubj")
