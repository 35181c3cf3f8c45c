"""Each deliberately corrupted file: exactly the expected records and dead letters (reason, line), none lost."""
import json
from pathlib import Path

import pytest

from entailgen.schemas.records import DeadLetter
from entailgen.transforms.io import read_file

CORRUPT = Path(__file__).parents[2] / "data" / "corrupt"

# file -> (format, number of records, [(where, error type) of each dead letter, in file order])
EXPECTED = {
    "corrupt_text.txt": ("text", 3, [("2", "EmptyLine"), ("3", "BadEncoding"), ("4", "TooLong"), ("5", "EmptyLine")]),
    "corrupt_text.jsonl": ("text-jsonl", 2, [("2", "MissingField"), ("3", "MalformedJson"), ("4", "BadField"),
                                             ("5", "EmptyText"), ("6", "NotAnObject"), ("7", "EmptyLine"),
                                             ("9", "EmptyLine")]),
    "corrupt_paraphrase.tsv": ("paraphrase-tsv", 2, [("2", "WrongColumnCount"), ("3", "EmptyText"),
                                                     ("4", "BadEncoding"), ("5", "WrongColumnCount"),
                                                     ("6", "TooLong")]),
    "corrupt_paraphrase.jsonl": ("paraphrase-jsonl", 2, [("3", "MissingField"), ("4", "MalformedJson"),
                                                         ("5", "MissingField"), ("6", "EmptyLine")]),
    "corrupt_conll2003.txt": ("conll2003", 3, [("7", "WrongColumnCount"), ("10", "BadTag"), ("14", "BadEncoding"),
                                               ("26", "TooLong")]),
    "corrupt_gmb.csv": ("gmb", 2, [("5", "WrongColumnCount"), ("7", "BadTag"), ("9", "MissingField"),
                                   ("11", "BadEncoding")]),
    "corrupt_uds.json": ("uds-json", 3, [("bad-value-semantics-pred-5", "BadValue"), ("no-nodes", "MissingField"),
                                         ("malformed", "MalformedJson"), ("bad-bytes", "BadEncoding"),
                                         ("truncated", "MalformedJson")]),
    "corrupt_factuality.jsonl": ("factuality-jsonl", 2, [("3", "BadValue"), ("4", "BadValue"), ("5", "MissingField"),
                                                         ("6", "MalformedJson"), ("7", "BadValue")]),
    "corrupt_yelp_labelled.txt": ("sentiment-uci", 3, [("3", "BadLabel"), ("4", "WrongColumnCount"),
                                                       ("5", "EmptyText"), ("6", "EmptyLine"), ("7", "BadEncoding")]),
    "corrupt_sentiment.csv": ("sentiment-csv", 2, [("3", "BadLabel"), ("4", "WrongColumnCount"), ("6", "TooLong"),
                                                   ("7", "WrongColumnCount")]),
    "corrupt_nli.jsonl": ("nli-jsonl", 3, [("2", "BadLabel"), ("3", "MissingField"), ("4", "MalformedJson"),
                                           ("6", "BadLabel")]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corrupt_file_gives_expected_records_and_dead_letters(name):
    fmt, n_records, dead = EXPECTED[name]
    out = list(read_file(str(CORRUPT / name)))  # the format is detected
    letters = [r for r in out if isinstance(r, DeadLetter)]
    assert len(out) - len(letters) == n_records
    assert [(d.source_id.split(":", 1)[1], d.error_type) for d in letters] == dead
    assert all(d.source == name and d.stage == "read" and d.message for d in letters)
    assert list(read_file(str(CORRUPT / name), fmt)) == out


def test_every_physical_line_of_a_line_format_is_accounted_for():
    for name, (fmt, n_records, dead) in EXPECTED.items():
        if fmt in ("conll2003", "gmb", "uds-json"):
            continue
        lines = (CORRUPT / name).read_bytes().splitlines()
        header = 1 if fmt == "sentiment-csv" else 0
        assert n_records + len(dead) == len(lines) - header, name


def test_bad_bytes_are_kept_visible_in_the_raw_text():
    (letter,) = [r for r in read_file(str(CORRUPT / "corrupt_text.txt")) if getattr(r, "error_type", "") ==
                 "BadEncoding"]
    assert letter.raw == "Caf\ufffd au lait is French."
    assert letter.message == "not valid utf-8: invalid continuation byte at byte 3"


def test_latin1_files_read_with_the_configured_encoding():
    from entailgen.transforms.io import ReaderConfig

    out = list(read_file(str(CORRUPT / "corrupt_gmb.csv"), "gmb", ReaderConfig(encoding="latin-1")))
    zurich = next(r for r in out if r.source_id == "corrupt_gmb.csv:11")
    assert zurich.tokens == ["Z\u00fcrich", "today"] and zurich.tags == ["B-geo", "B-tim"]


def test_control_characters_are_read_as_spaces_and_a_nul_stays_bad_encoding(tmp_path):
    """BEL, ESC, form feed (and DEL, a C1 control) inside a text are no words: read as spaces, tab and line breaks
    kept; a text of control characters alone is empty; NUL is still BadEncoding."""
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (
        {"text": "Anna won.\u0007Tom lost.\u001bIt rained.\u000cThe end.\u007f\u0085Yes.\tNo.\n\nNext."},
        {"text": "\u0007\u001b\u000c"}, {"text": "Anna\u0000won."})) + "\n")
    first, blank, nul = read_file(str(path), "documents-jsonl")
    assert first.text == "Anna won. Tom lost. It rained. The end.  Yes.\tNo.\n\nNext."
    assert (blank.error_type, nul.error_type) == ("EmptyText", "BadEncoding")
