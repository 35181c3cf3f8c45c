"""UDS 2.0 factuality (decomp's sentence-graph JSON, streamed) and factuality JSON Lines."""
import json
from pathlib import Path

import entailgen
from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import FactualityAnnotation
from entailgen.transforms.io.base import ReaderConfig, detokenize
from entailgen.transforms.io.jsonstream import data_members
from entailgen.transforms.io.uds import read_factuality_jsonl, read_uds_json

SAMPLES = Path(entailgen.__file__).parent / "samples"
UDS = (SAMPLES / "uds_factuality.json").read_bytes()


def chunks(data: bytes, size: int):
    return [data[i:i + size] for i in range(0, len(data), size)]


def test_uds_sample_learn_did_not_happen():
    records = list(read_uds_json([UDS], "uds_factuality.json"))
    assert len(records) == 152 and all(isinstance(r, FactualityAnnotation) for r in records)
    learn = next(r for r in records if r.source_id.endswith("ewt-train-7842-semantics-pred-5"))
    assert learn == FactualityAnnotation(
        "uds_factuality.json:ewt-train-7842-semantics-pred-5", "uds_factuality.json",
        ["I", "would", "like", "to", "learn", "how"], 4, "learn", -1.2185, "I would like to learn how")
    like = next(r for r in records if r.source_id.endswith("ewt-train-7842-semantics-pred-3"))
    assert (like.predicate_index, like.predicate_lemma, like.value) == (2, "like", 1.0334)  # the liking happened


def test_uds_predicate_lemma_comes_from_the_head_token():
    saw = next(r for r in read_uds_json([UDS], "u.json") if r.sentence.startswith("When they saw a cartoon"))
    assert (saw.tokens[saw.predicate_index], saw.predicate_lemma) == ("saw", "see")


def test_uds_chunk_boundaries_do_not_change_the_records():
    whole = list(read_uds_json([UDS], "u.json"))
    assert list(read_uds_json(chunks(UDS, 4096), "u.json")) == whole
    small = UDS[:UDS.index(b',\n"', 200)] + b"}}"  # the first graph, closed
    assert list(read_uds_json(chunks(small, 1), "u.json")) == list(read_uds_json([small], "u.json"))


def test_multibyte_characters_split_across_chunks():
    data = '{"data": {"g": {"nodes": [{"x": "caf\u00e9 \u2014 \U0001F600"}]}, "h": [1, 2.5]}}'.encode()
    members = list(data_members(chunks(data, 1), 1 << 20))
    assert [(m.key, m.value) for m in members] == [("g", {"nodes": [{"x": "caf\u00e9 \u2014 \U0001F600"}]}),
                                                   ("h", [1, 2.5])]


def test_a_number_cut_by_a_chunk_boundary_is_read_whole():
    members = list(data_members([b'{"data": {"a": 12', b'34}}'], 1 << 20))
    assert [(m.key, m.value) for m in members] == [("a", 1234)]


def test_malformed_value_is_skipped_to_its_end_and_reading_goes_on():
    members = list(data_members([b'{"data": {"a": {"x": [1,,2]}, "b": tru, "c": {"ok": true}}}'], 1 << 20))
    assert [(m.key, m.error.error_type if m.error else m.value) for m in members] == [
        ("a", "MalformedJson"), ("b", "MalformedJson"), ("c", {"ok": True})]
    assert members[0].raw == '{"x": [1,,2]}' and not members[0].fatal


def test_oversized_value_ends_the_file_as_one_dead_letter_with_bounded_memory():
    data = b'{"data": {"big": "' + b"x" * 50000 + b'", "next": 1}}'
    (member,) = data_members(chunks(data, 100), max_chars=2000)
    assert (member.key, member.error.error_type, member.fatal) == ("big", "MalformedJson", True)


def test_annotation_only_file_says_where_the_sentences_are():
    data = json.dumps({"metadata": {}, "data": {"ewt-dev-1": {"ewt-dev-1-semantics-pred-4": {
        "factuality": {"factual": {"value": 0.9, "confidence": 1.0}}}}}}).encode()
    (letter,) = read_uds_json([data], "factuality.json")
    assert isinstance(letter, DeadLetter) and letter.source_id == "factuality.json:ewt-dev-1"
    assert letter.error_type == "MissingField" and "uds-ewt-sentences" in letter.message


def test_a_file_that_is_not_uds_is_one_dead_letter():
    (letter,) = read_uds_json([b'{"rows": []}'], "x.json")
    assert (letter.source_id, letter.error_type) == ("x.json:@0", "MissingField")
    (broken,) = read_uds_json([b"[1, 2]"], "x.json")
    assert broken.error_type == "MalformedJson"
    assert list(read_uds_json([b"  \n"], "x.json")) == []


def test_factuality_jsonl_tokens_or_sentence():
    out = list(read_factuality_jsonl([
        b'{"id": "f1", "tokens": ["She", "hoped", "to", "win", "."], "predicate_index": 3, "value": -0.9}\n',
        b'{"sentence": "The dog barked .", "predicate_index": 2, "predicate_lemma": "bark", "value": 1.2}\n',
        b'{"sentence": "He left .", "predicate_index": 3, "value": 1}\n'], "f.jsonl"))
    assert out[0] == FactualityAnnotation("f.jsonl:f1", "f.jsonl", ["She", "hoped", "to", "win", "."], 3, "", -0.9,
                                          "She hoped to win.")  # no lemma given: none guessed from the token
    assert out[1] == FactualityAnnotation("f.jsonl:2", "f.jsonl", ["The", "dog", "barked", "."], 2, "bark", 1.2,
                                          "The dog barked .")
    assert (out[2].error_type, out[2].message) == ("BadValue", "predicate_index 3 is not a token index (0..2)")


def test_factuality_sample_learn_did_not_happen():
    with open(SAMPLES / "factuality.jsonl", "rb") as f:
        records = list(read_factuality_jsonl(f, "factuality.jsonl", ReaderConfig()))
    assert len(records) == 20 and all(r.predicate_lemma for r in records)
    learn = records[-1]
    assert (learn.source_id, learn.sentence) == ("factuality.jsonl:f20", "I would like to learn how to sail .")
    assert (learn.predicate_lemma, learn.tokens[learn.predicate_index], learn.value) == ("learn", "learn", -1.17)


def test_detokenize_attaches_punctuation_and_clitics():
    assert detokenize(["He", "said", ",", "``", "we", "do", "n't", "(", "yet", ")", "'s", "."]) == \
        'He said, `` we don\'t (yet)\'s.'
