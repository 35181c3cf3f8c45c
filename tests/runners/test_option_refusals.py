"""Issue 20 item 6 from the command line: empty option files and flags a family would ignore are one line and exit 2
before any job; a bad refresh config names its line; a phrase file's bad line is a dead letter and the run goes on."""
import json
from pathlib import Path

import pytest

from entailgen.runners.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.mark.parametrize("family, flags, error", [
    ("dae", ["--input", "paraphrase.tsv", "--candidates", "{empty}"], "--candidates: {empty} is empty"),
    ("recast", ["--input", "relation.txt", "--phenomena", "relation", "--kb", "{empty}"], "--kb: {empty} is empty"),
    ("nli-dialogue", ["--input", "nli.jsonl", "--phrase-file", "{empty}"], "--phrase-file: {empty} is empty"),
    ("paraphrase", ["--input", "text.txt", "--k", "5"],
     "--k is for --generator hf; the apertium generator takes no model and makes one candidate per route"),
    ("paraphrase", ["--input", "text.txt", "--model", "m", "--k", "5"],
     "--model and --k are for --generator hf; the apertium generator takes no model and makes one candidate per "
     "route"),
    ("paraphrase", ["--input", "text.txt", "--max-new-tokens", "30"],
     "--max-new-tokens is for --generator hf; the apertium generator takes no model and makes one candidate per "
     "route"),
    ("dae", ["--input", "paraphrase.tsv", "--max-new-tokens", "30"],
     "--max-new-tokens is for --generator hf or ct2; the apertium generator ignores it"),
    ("claims", ["--input", "documents.jsonl", "--model", "m"],
     "--model is for --backtranslator hf; the apertium back-translator takes no model"),
    ("claims", ["--input", "documents.jsonl", "--backtranslator", "hf", "--model", "m", "--transformations",
                "negation"], "--backtranslator hf: back-translation is not among --transformations"),
])
def test_empty_option_files_and_ignored_flags_are_refused(tmp_path, capsys, family, flags, error):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    flags = [str(SAMPLES / f) if i and flags[i - 1] == "--input" else f.format(empty=empty)
             for i, f in enumerate(flags)]
    assert main(["run", family, "--output", str(tmp_path / "out"), *flags]) == 2
    assert one_error(capsys) == "entailgen: error: " + error.format(empty=empty)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, content, error", [
    ("c.yaml", b"name: x\npipeline: [parse\n", "c.yaml line 3 is not valid YAML: expected ',' or ']'"),
    ("c.yaml", b"name: x\n  pipeline: parse\n", "c.yaml line 2 is not valid YAML: mapping values are not allowed"),
    ("c.yaml", b"name: x\n\xff\n", "c.yaml line 2: not UTF-8"),
    ("c.json", b'{"name": 3, "pipeline": "parse", "root": "o"}', "c.json is not valid: "),
])
def test_a_bad_refresh_config_is_one_line_naming_its_line(tmp_path, capsys, name, content, error):
    pytest.importorskip("yaml")
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["refresh", str(path)]) == 2
    assert error in one_error(capsys)


def test_a_phrase_line_that_is_not_utf8_is_a_dead_letter_and_the_run_goes_on(tmp_path):
    """Two pairs, two phrases of three usable: each pair is kept and gets one dialogue copy; line 2 of the phrase
    file is one dead letter of that file, not an input unit."""
    pairs = tmp_path / "nli.jsonl"
    pairs.write_text("".join(json.dumps({"gold_label": label, "sentence1": p, "sentence2": h}) + "\n" for label, p, h in [
        ("entailment", "A man rides a bike .", "A man is riding ."),
        ("contradiction", "A girl sings .", "A girl sleeps .")]))
    phrases = tmp_path / "phrases.tsv"
    phrases.write_bytes(b"I think\thedging\n\xff\xfe oops\nHonestly,\thedging\n")
    out = tmp_path / "out"
    assert main(["run", "nli-dialogue", "--input", str(pairs), "--phrase-file", str(phrases), "--output", str(out),
                 "--quiet"]) == 0
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["dead_by_source"] == {"phrases.tsv": 1} and counts["dead_by_stage"] == {"phrases:BadEncoding": 1}
    assert (counts["read"], counts["units_with_output"], counts["total"]["written"]) == (
        {"nli.jsonl": 2}, {"nli.jsonl": 2}, 4)
