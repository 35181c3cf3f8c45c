"""Byte-order marks decide the encoding (UTF-8, UTF-16 LE/BE): never a record of '\\x00H\\x00e...' (issue 12, item 2)."""
from pathlib import Path

import pytest

import entailgen
from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import FactualityAnnotation, NerSentence, SourceText
from entailgen.transforms.io import ReaderConfig, detect_format, read_file
from entailgen.transforms.io.encoding import first_line, lines_of, utf8_chunks

SAMPLES = Path(entailgen.__file__).parent / "samples"
BOM8 = b"\xef\xbb\xbf"


def units(path, fmt=None, config=ReaderConfig()):
    return list(read_file(str(path), fmt, config))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_text_with_a_bom_is_read_as_its_encoding(tmp_path, encoding):
    path = tmp_path / "text.txt"
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path.write_bytes(bom + "Hello there.\r\nZoë left.\n".encode(encoding))
    assert detect_format(str(path)) == "text"
    assert units(path) == [SourceText("Hello there.", "text.txt", "text.txt:1", "text"),
                           SourceText("Zoë left.", "text.txt", "text.txt:2", "text")]


def test_a_bom_overrides_the_configured_encoding(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("Zoë left.\n", encoding="utf-16")
    assert units(path, config=ReaderConfig(encoding="latin-1")) == [
        SourceText("Zoë left.", "text.txt", "text.txt:1", "text")]


def test_a_utf16_unit_that_cannot_be_decoded_is_a_bad_encoding_dead_letter(tmp_path):
    path = tmp_path / "text.txt"
    # line 2 holds a lone high surrogate (0xD800), which UTF-16 cannot decode
    path.write_bytes(b"\xfe\xff" + "One.\nTwo".encode("utf-16-be") + b"\xd8\x00" + "\nThree.\n".encode("utf-16-be"))
    got = units(path)
    assert [type(u).__name__ for u in got] == ["SourceText", "DeadLetter", "SourceText"]
    assert (got[1].source_id, got[1].error_type) == ("text.txt:2", "BadEncoding")
    assert got[1].message == "bytes the encoding of the file's byte-order mark cannot decode"
    assert got[2].text == "Three."


def test_utf16_without_a_bom_is_never_a_row_with_nul_characters(tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes("Hello.\nBye.\n".encode("utf-16-le"))
    with pytest.raises(ValueError, match="NUL bytes"):
        detect_format(str(path))
    got = units(path, "text")
    assert all(isinstance(u, DeadLetter) and u.error_type == "BadEncoding" for u in got)
    assert len(got) == 3  # "H\0e\0...\n", "\0B\0y...\n", "\0" (the NUL after the last newline)


def test_a_json_field_with_a_nul_escape_is_a_dead_letter(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"text": "a\\u0000b"}\n{"text": "ok"}\n')
    got = units(path)
    assert (got[0].error_type, got[1]) == ("BadEncoding", SourceText("ok", "t.jsonl", "t.jsonl:2", "text"))


def test_uds_json_with_a_utf8_bom_keeps_every_predicate(tmp_path):
    path = tmp_path / "uds.json"
    path.write_bytes(BOM8 + (SAMPLES / "uds_factuality.json").read_bytes())
    assert detect_format(str(path)) == "uds-json"
    got = units(path, config=ReaderConfig(chunk_bytes=1000))
    assert len(got) == 152 and all(isinstance(u, FactualityAnnotation) for u in got)


def test_uds_json_in_utf16_keeps_every_predicate(tmp_path):
    path = tmp_path / "uds.json"
    path.write_text((SAMPLES / "uds_factuality.json").read_text(encoding="utf-8"), encoding="utf-16")
    assert sum(isinstance(u, FactualityAnnotation) for u in units(path, config=ReaderConfig(chunk_bytes=777))) == 152


def test_conll_docstart_behind_a_bom_is_no_sentence(tmp_path):
    path = tmp_path / "ner.txt"
    path.write_bytes(BOM8 + b"-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n")
    assert detect_format(str(path)) == "conll2003"
    assert units(path) == [NerSentence("ner.txt:3", "ner.txt", ["EU", "rejects"], ["B-ORG", "O"],
                                                 ["NNP", "VBZ"])]


def test_utf8_chunks_and_lines():
    chunks, encoding = utf8_chunks([b"\xff", b"\xfea\x00\n", b"\x00b\x00"])
    assert (encoding, list(lines_of(chunks))) == ("utf-16-le", [b"a\n", b"b"])
    chunks, encoding = utf8_chunks([b"ab", b"c\nd"])
    assert (encoding, b"".join(chunks)) == (None, b"abc\nd")
    assert list(lines_of([b"a\nb", b"c\n\nd"])) == [b"a\n", b"bc\n", b"\n", b"d"]
    assert list(lines_of([b"a", b"b", b"\n", b""])) == [b"ab\n"]  # a line across chunks; nothing after the last end


def test_detection_reads_a_long_first_line_to_its_end(tmp_path):
    token = "x" * 70_000  # past the 64 KiB a first read returns
    assert first_line([b"ab", b"c\r\nd"], 100) == b"abc"
    path = tmp_path / "eng.txt"
    path.write_text(f"{token} NN B-NP O\nEU NNP B-NP B-ORG\n")
    assert detect_format(str(path)) == "conll2003"


def test_an_empty_file_has_no_format(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(BOM8)
    with pytest.raises(ValueError, match="is empty"):
        detect_format(str(path))
