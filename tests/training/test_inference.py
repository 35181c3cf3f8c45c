"""The score job's rows (training.scoring.inference): what a JSON Lines row must hold to be scored, each refusal a dead
letter that says why, and a compressed file read by its bytes' word, not its name's alone."""
import gzip
import json

import pytest

from entailgen.schemas.records import DeadLetter
from entailgen.training.scoring.inference import PairInput, check_scoring, parse_document_line, parse_line


def test_an_id_that_is_not_a_string_is_kept_as_json():
    for given, kept in ((7, "7"), (1.5, "1.5"), ([1, "a"], '[1, "a"]'), ({"b": 1, "a": 2}, '{"a": 2, "b": 1}'),
                        (True, "true"), ("x", "x")):
        row = parse_line(json.dumps({"id": given, "premise": "A dog barks.", "hypothesis": "A dog."}), "f.jsonl")
        assert row == PairInput("A dog barks.", "A dog.", "f.jsonl", kept)


def test_a_field_that_is_not_text_is_a_dead_letter_naming_its_type():
    for value, says in ((3, "a number"), ([], "an array"), ({"text": "x"}, "an object"), (False, "a boolean")):
        dead = parse_document_line(json.dumps({"id": "r", "document": value, "summary": "A dog."}), "f.jsonl")
        assert isinstance(dead, DeadLetter) and (dead.source_id, dead.error_type) == ("r", "NotText")
        assert dead.message == f"document is {says}, not text"
    dead = parse_line(json.dumps({"id": "r", "premise": "A dog.", "hypothesis": None}), "f.jsonl")
    assert (dead.error_type, dead.message) == ("MissingField", "no text in hypothesis")  # null: not given


def test_a_row_of_the_other_layout_says_how_to_score_it():
    document = json.dumps({"id": "r", "document": "A dog barks.", "summary": "A dog."})
    assert parse_line(document, "f").message == \
        "no text in premise, hypothesis (a row of document and summary: score it with --documents)"
    pair = json.dumps({"id": "r", "premise": "A dog barks.", "hypothesis": "A dog."})
    assert parse_document_line(pair, "f").message == \
        "no text in document, summary (a row of premise and hypothesis: score it without --documents)"
    # half of the other layout is no such row: the plain word
    assert parse_line(json.dumps({"document": "A dog barks.", "summary": " "}), "f").message == \
        "no text in premise, hypothesis"
    assert parse_document_line(pair, "f", fields=("premise", "hypothesis")).source_id == "r"  # a detector's pairs


def test_a_summary_without_a_word_is_a_dead_letter():
    for summary in ("...", "!? -", "“”"):
        dead = parse_document_line(json.dumps({"id": "r", "document": "A dog barks.", "summary": summary}), "f")
        assert (dead.error_type, dead.message) == ("NoWords", "no word in summary")
    assert parse_document_line(json.dumps({"document": "A dog barks.", "summary": "7"}), "f").summary == "7"


def test_compressed_bytes_under_a_plain_name_and_a_gz_name_over_plain_bytes_are_refused(tmp_path):
    rows = json.dumps({"id": "a", "premise": "A dog barks.", "hypothesis": "A dog."}) + "\n"
    hidden, plain, good = tmp_path / "pairs.jsonl", tmp_path / "plain.jsonl.gz", tmp_path / "good.jsonl.gz"
    hidden.write_bytes(gzip.compress(rows.encode()))
    plain.write_text(rows)
    good.write_bytes(gzip.compress(rows.encode()))
    with pytest.raises(ValueError, match=f"^--input: {hidden} is gzip-compressed but its name does not end in .gz; "
                                         f"rename it {hidden}.gz$"):
        check_scoring(str(hidden))
    with pytest.raises(ValueError, match=f"^--input: {plain} ends in .gz but is not gzip-compressed; rename it "
                                         "without .gz$"):
        check_scoring(str(plain))
    check_scoring(str(good))  # named as it is: read (and decompressed) by its name


def test_a_lone_surrogate_in_a_text_or_an_id_is_a_dead_letter_or_an_escaped_id_not_a_crash():
    from entailgen.schemas.records import dead_letter

    line = json.dumps({"id": "r", "premise": "A dog barks.", "hypothesis": "A dog \ud800."})  # "\ud800": a JSON escape
    for dead in (parse_line(line, "f"), parse_line(line.encode(), "f"),
                 parse_document_line(line, "f", fields=("premise", "hypothesis"))):
        assert (dead.source_id, dead.stage, dead.error_type, dead.message) == (
            "r", "read", "BadEncoding", "hypothesis has a lone surrogate, not writable as UTF-8")
    summary = json.dumps({"id": "s", "document": "A dog barks.", "summary": "\udc80 A dog."})
    assert parse_document_line(summary, "f").message == "summary has a lone surrogate, not writable as UTF-8"
    raw = json.dumps({"premise": "A dog barks.", "hypothesis": "A dog \ud800."}, ensure_ascii=False)  # the character
    dead = parse_line(raw, "f")
    assert (dead.error_type, dead.raw) == ("BadEncoding", raw.replace("\ud800", "\\ud800"))
    given = json.dumps({"id": "a\ud800", "premise": "A dog barks.", "hypothesis": "A dog."})
    assert parse_line(given, "f").source_id == '"a\\ud800"'  # the id's JSON escape: a manifest can write it
    # a failed batch's dead letter of such text (its message, its raw row) is written with the escape, not raised
    dead = dead_letter("f", "r", "score", "UnicodeEncodeError", "can't encode '\ud800'", "A dog \ud800.")
    assert (dead.message, dead.raw) == ("can't encode '\\ud800'", "A dog \\ud800.")
