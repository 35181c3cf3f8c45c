"""Line formats (text, text-jsonl, paraphrase tsv/jsonl): exact records, and one unit per physical line."""
from pathlib import Path

import entailgen
from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import ParaphrasePair, SourceText
from entailgen.transforms.io.base import ReaderConfig, physical_lines
from entailgen.transforms.io.paranmt import read_paraphrase_jsonl, read_paraphrase_tsv
from entailgen.transforms.io.text import read_text, read_text_jsonl

SAMPLES = Path(entailgen.__file__).parent / "samples"


def test_physical_lines_final_newline_is_no_line_but_a_blank_line_is():
    assert list(physical_lines([b"a\n", b"b\n"])) == [(1, b"a"), (2, b"b")]
    assert list(physical_lines([b"a\n", b"b\n", b"\n"])) == [(1, b"a"), (2, b"b"), (3, b"")]
    assert list(physical_lines(b"a\r\nb\n".split(b"\n"))) == [(1, b"a"), (2, b"b")]  # split's empty tail
    assert list(physical_lines([])) == []


def test_text_lines_become_source_texts_with_line_ids():
    out = list(read_text([b"\xef\xbb\xbfThe cat sat.\r\n", b"\n", b"  Dogs bark.  "], "t.txt"))
    assert out[0] == SourceText("The cat sat.", "t.txt", "t.txt:1", "text")  # BOM and CRLF gone
    assert isinstance(out[1], DeadLetter) and (out[1].source_id, out[1].error_type) == ("t.txt:2", "EmptyLine")
    assert out[1].stage == "read"
    assert out[2] == SourceText("Dogs bark.", "t.txt", "t.txt:3", "text")


def test_text_longer_than_max_chars_is_a_dead_letter_with_the_raw_text_cut():
    (letter,) = read_text([b"a" * 30], "t.txt", ReaderConfig(max_chars=20))
    assert (letter.error_type, letter.message) == ("TooLong", "line has 30 characters > max 20")
    assert letter.raw == "a" * 30
    (long,) = read_text([b"b" * 5000], "t.txt")
    assert long.error_type == "TooLong" and len(long.raw) == 1000


def test_text_jsonl_reads_the_text_field():
    out = list(read_text_jsonl([b'{"text": " A sentence. ", "id": 7}\n', b'{"text": ""}\n'], "t.jsonl"))
    assert out[0] == SourceText("A sentence.", "t.jsonl", "t.jsonl:1", "text")
    assert (out[1].error_type, out[1].message) == ("EmptyText", "text is empty")


def test_paranmt_tsv_first_sample_pair_is_the_dae_figure_3_example():
    with open(SAMPLES / "paraphrase.tsv", "rb") as f:
        first = next(read_paraphrase_tsv(f, "paraphrase.tsv"))
    assert first == ParaphrasePair("paraphrase.tsv:1", "paraphrase.tsv",
                                   "can you people guarantee the liquidation of Bluestar ?",
                                   "can you guarantee Bluestar's disposal ?")


def test_paraphrase_tsv_columns():
    ok2, ok3, stray_tab, one = read_paraphrase_tsv(
        [b"x .\th .\n", b"x .\th .\t0.5\t12\n", b"x .\th\t.\n", b"x only\n"], "p.tsv")
    assert (ok2.text, ok2.gold) == ("x .", "h .")
    assert isinstance(ok3, ParaphrasePair)  # any number of score columns
    assert (stray_tab.error_type, stray_tab.source_id) == ("WrongColumnCount", "p.tsv:3")
    assert one.error_type == "WrongColumnCount"


def test_paraphrase_jsonl_field_names_and_ids():
    out = list(read_paraphrase_jsonl([b'{"id": "p9", "text": "x", "gold": "h"}\n',
                                      b'{"source": "x2", "paraphrase": "h2"}\n',
                                      b'{"text": "x3"}\n'], "p.jsonl"))
    assert out[0] == ParaphrasePair("p.jsonl:p9", "p.jsonl", "x", "h")  # the dataset's id names the pair
    assert out[1] == ParaphrasePair("p.jsonl:2", "p.jsonl", "x2", "h2")
    assert (out[2].error_type, out[2].message) == ("MissingField", "no 'gold' or 'paraphrase' field")
