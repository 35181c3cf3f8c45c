"""Files options name (issue 20 item 6): empty ones refused before the job, a KB's byte-order mark stripped, true
line numbers, lines that are not UTF-8 as dead letters of their file (candidates, score input, phrases), and KB
relations no template covers counted."""
import pytest

from entailgen.schemas.records import DeadLetter, ParsedSentence, Skipped, Token
from entailgen.training.scoring.inference import PairInput, check_scoring, parse_line
from entailgen.transforms.augment.dialogue import DialoguePhrase, read_phrase_lines
from entailgen.transforms.generate.candidates import CandidateRow, UserCandidatesOptions, parse_row
from entailgen.transforms.io.option_files import check_option_file, option_file_lines
from entailgen.transforms.recast.relation import (RelationConfig, RelationPrior, _RecastRelationFn, load_kb,
                                                  mention_pairs, parse_kb, parse_templates, recast_relation)


TEMPLATES = parse_templates(["P47\tshares border with\tX is bordered by Y\tGPE,LOC\tGPE,LOC",
                             "P36\tcapital\tY is the capital of X\tGPE\tGPE"])
PRIOR = RelationPrior({("GPE", "GPE"): {"P47": 5, "P36": 3}})
WORDS = [("Kazakhstan", "GPE"), ("shares", "O"), ("a", "O"), ("border", "O"), ("with", "O"), ("Russia", "GPE"),
         (".", "O")]
KAZAKHSTAN = ParsedSentence("k", "Kazakhstan shares a border with Russia.", [
    Token(text, text, "X", "X", ner, -1, "dep", space_after=k + 1 < len(WORDS) - 1)
    for k, (text, ner) in enumerate(WORDS)], [], "hand", "test.txt", "s:1")


@pytest.mark.parametrize("content, error", [
    (b"", "--kb: {path} is empty"),
    (b"\xef\xbb\xbf\n  \n", "--kb: {path} is empty"),  # a byte-order mark and blank lines hold nothing either
])
def test_an_empty_option_file_is_refused(tmp_path, content, error):
    path = tmp_path / "kb.tsv"
    path.write_bytes(content)
    with pytest.raises(ValueError) as raised:
        check_option_file("--kb", str(path))
    assert str(raised.value) == error.format(path=path)


def test_a_missing_file_or_a_directory_is_refused_and_a_line_passes(tmp_path):
    with pytest.raises(ValueError, match=r"^--candidates: file not found: .*nope.jsonl$"):
        check_option_file("--candidates", str(tmp_path / "nope.jsonl"))
    with pytest.raises(ValueError, match=r"^--candidates: cannot read .*: Is a directory$"):
        check_option_file("--candidates", str(tmp_path))
    (tmp_path / "one.jsonl").write_text("\n\n{}\n")
    check_option_file("--candidates", str(tmp_path / "one.jsonl"))


def test_lines_are_numbered_as_an_editor_numbers_them(tmp_path):
    """str.splitlines also splits at a form feed and U+2028: the line after them would be numbered 4, not 2."""
    path = tmp_path / "f.tsv"
    path.write_bytes(b"\xef\xbb\xbfa\x0cb\xe2\x80\xa8c\r\n\xff bad\nlast\n")
    assert [(line.number, line.text) for line in option_file_lines(str(path))] == [
        (1, "a\x0cb\u2028c"), (2, None), (3, "last")]


KB = "Kazakhstan\tP47\tRussia\n"


def test_a_kb_byte_order_mark_is_stripped_and_bad_lines_are_named_by_their_true_number(tmp_path):
    kb = tmp_path / "kb.tsv"
    kb.write_bytes(b"\xef\xbb\xbf" + KB.encode())
    assert load_kb(str(kb), TEMPLATES).triples == {("Kazakhstan", "Russia"): ("P47",)}  # not '\ufeffKazakhstan'
    kb.write_bytes(KB.encode() + b"# a form feed \x0c in a comment\nonly\ttwo\n")
    with pytest.raises(ValueError, match=r"^kb.tsv:3: want subject<TAB>relation<TAB>object"):
        load_kb(str(kb), TEMPLATES)
    kb.write_bytes(KB.encode() + b"Astana\tP1376\tKazakhstan \xe9\n")
    with pytest.raises(ValueError, match=r"^kb.tsv:2: not UTF-8$"):
        load_kb(str(kb), TEMPLATES)
    with pytest.raises(ValueError, match=r"^kb: no KB triples$"):
        parse_kb(["# only a comment"], TEMPLATES)


def test_a_kb_relation_no_template_covers_is_counted():
    """P999 has no template. Alone it leaves the sentence skipped with the reason naming it; beside P47 the pair is
    recast and the P999 triple is a skip of its own (counted by the job as a transformation-level skip)."""
    only = parse_kb(["Kazakhstan\tP999\tRussia"], TEMPLATES)
    config = RelationConfig(TEMPLATES, negatives_per_sentence=0)
    assert recast_relation(mention_pairs(KAZAKHSTAN, only), PRIOR, config) == Skipped(
        "test.txt", "s:1", "recast_relation", "NoTemplate:P999")
    both = parse_kb(["Kazakhstan\tP47\tRussia", "Kazakhstan\tP999\tRussia"], TEMPLATES)
    outs = list(_RecastRelationFn(config).process(mention_pairs(KAZAKHSTAN, both), PRIOR))
    assert [o.hypothesis for o in outs if not hasattr(o, "tag")] == ["Kazakhstan is bordered by Russia .",
                                                                     "Russia is the capital of Kazakhstan ."]
    assert [(o.tag, o.value) for o in outs if hasattr(o, "tag")] == [
        ("skipped", Skipped("test.txt", "s:1", "recast_relation", "NoTemplate:P999"))]


def test_a_candidates_line_that_is_not_utf8_is_its_dead_letter():
    options = UserCandidatesOptions(name="beams.jsonl")
    dead = parse_row(b'{"source_id": "a", "candidates": ["caf\xe9"]}', options)
    assert isinstance(dead, DeadLetter)
    assert (dead.source, dead.stage, dead.error_type) == ("beams.jsonl", "candidates", "BadEncoding")
    row = parse_row('\ufeff{"source_id": "a", "candidates": ["café"]}'.encode(), options)
    assert isinstance(row, CandidateRow) and row.key == ("id", "a") and row.hypotheses == (("café", None),)


def test_a_score_input_line_that_is_not_utf8_is_its_dead_letter(tmp_path):
    dead = parse_line(b'{"premise": "caf\xe9", "hypothesis": "x"}', "pairs.jsonl")
    assert (dead.source, dead.stage, dead.error_type) == ("pairs.jsonl", "read", "BadEncoding")
    assert parse_line(b'{"id": 7, "premise": "a dog", "hypothesis": "a cat"}', "pairs.jsonl") == PairInput(
        "a dog", "a cat", "pairs.jsonl", "7")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "pairs.jsonl").write_text('{"premise": "a", "hypothesis": "b"}\n')
    for args, error in [((str(tmp_path / "empty.jsonl"),), r"^--input: .*empty.jsonl is empty$"),
                        ((str(tmp_path),), r"^--input: cannot read .*: Is a directory$"),
                        ((str(tmp_path / "pairs.jsonl"), "parquet", 0), r"^--num-shards must be at least 1, got 0$")]:
        with pytest.raises(ValueError, match=error):
            check_scoring(*args)
    check_scoring(str(tmp_path / "pairs.jsonl"))


def test_a_phrase_line_that_is_not_utf8_is_its_dead_letter_and_the_others_are_used(tmp_path):
    path = tmp_path / "phrases.tsv"
    path.write_bytes(b"Well,\thedging\n\xff\xfe oops\nSo\n")
    phrases, dead = read_phrase_lines(str(path))
    assert phrases == (DialoguePhrase("Well,", "hedging"), DialoguePhrase("So", "custom"))
    assert [(d.source, d.source_id, d.stage, d.error_type, d.message) for d in dead] == [
        ("phrases.tsv", "phrases.tsv:2", "phrases", "BadEncoding", "phrases.tsv line 2 is not UTF-8")]
    path.write_bytes(b"\xff only a bad line\n# and a comment\n")
    with pytest.raises(ValueError, match=r"^--phrase-file .*phrases.tsv holds no phrases$"):
        read_phrase_lines(str(path))
