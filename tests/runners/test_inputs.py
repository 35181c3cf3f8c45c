"""An input a family cannot use is one line and exit 2, never an empty dataset with exit 0 (issue 12, item 3)."""
import json
from pathlib import Path

import pytest

import entailgen
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.pipelines.recast import RecastOptions
from entailgen.runners.cli import main
from entailgen.runners.inputs import check_inputs, input_format_error, unused_inputs, usable_samples
from entailgen.transforms.io import FORMATS, read_file

SAMPLES = Path(entailgen.__file__).parent / "samples"
RECAST_FORMATS = "conll2003, gmb, uds-json, factuality-jsonl, sentiment-uci, sentiment-csv"  # without a KB


def test_each_family_takes_the_formats_whose_records_it_uses():
    assert get_family("dae").formats() == ("paraphrase-tsv", "paraphrase-jsonl")
    assert get_family("nli-dialogue").formats() == ("nli-jsonl", "entailgen-dataset")
    assert ", ".join(get_family("recast").formats()) == RECAST_FORMATS
    assert get_family("recast").formats(RecastOptions(phenomena=("ner",))) == ("conll2003", "gmb")
    assert get_family("claims").formats() == ("documents", "documents-jsonl", "documents-text")
    assert get_family("parse").formats() == tuple(FORMATS)  # the parse family parses the text of every format


def test_the_uds_file_given_to_nli_dialogue_is_refused_before_the_job():
    error = input_format_error(get_family("nli-dialogue"), None, str(SAMPLES / "uds_factuality.json"), None)
    assert error == (f"input {SAMPLES / 'uds_factuality.json'} is uds-json (detected), whose FactualityAnnotation "
                     "records nli-dialogue does not use with these options; nli-dialogue takes nli-jsonl, "
                     "entailgen-dataset")


def test_a_conll_file_with_a_header_line_is_refused_naming_the_detected_format(tmp_path):
    path = tmp_path / "ner.txt"
    path.write_text("Token POS Chunk NER\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n")
    with pytest.raises(ValueError, match=f"is text \\(detected\\), whose SourceText records recast does not use "
                                         f"with these options; recast takes {RECAST_FORMATS}$"):
        check_inputs(get_family("recast"), None, [str(SAMPLES / "conll2003.txt"), str(path)], None)


def test_an_empty_input_is_refused_even_with_its_format_given(tmp_path):
    path = tmp_path / "eng.conll"
    path.write_bytes(b"")
    assert input_format_error(get_family("recast"), None, str(path), "conll2003") == f"input {path} is empty"


def test_an_input_that_cannot_be_read_is_one_line(tmp_path):
    assert input_format_error(get_family("parse"), None, str(tmp_path), "text") == (
        f"cannot read input {tmp_path}: Is a directory")


def test_a_sentiment_file_read_as_paraphrase_tsv_gives_dead_letters_not_pairs(tmp_path):
    path = tmp_path / "uci.txt"
    path.write_text("Great phone, works well.\t1\nBattery died in a day.\t0\n")
    units = list(read_file(str(path), "paraphrase-tsv"))
    assert [(u.source_id, u.error_type) for u in units] == [("uci.txt:1", "BadField"), ("uci.txt:2", "BadField")]


def test_sample_runs_use_only_the_samples_the_options_select():
    paths = [str(SAMPLES / name) for name in get_family("recast").samples]
    assert [Path(p).name for p in usable_samples(get_family("recast"), RecastOptions(phenomena=("ner",)), paths)] == [
        "conll2003.txt"]


def test_unused_inputs_names_every_file_that_gave_no_record(tmp_path):
    good, bad = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    good.write_text('{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"}\n')
    bad.write_text('{"sentence1": "a", "sentence2": "b", "gold_label": "-"}\n')
    config = RunConfig("nli-dialogue", (str(good), str(bad)), "/out")
    counts = {"read": {"a.jsonl": 1, "b.jsonl": 1}, "records_by_source": {"a.jsonl": 2},
              "dead_by_source": {"b.jsonl": 1}, "units_dead": {"b.jsonl": 1}, "skipped_by_source": {}}
    assert unused_inputs(get_family("nli-dialogue"), config, {"counts": counts}) == (  # no dead-letter file to read
        "no record nli-dialogue can use came from b.jsonl (nli-jsonl, 1 of 1 units: dead 1). The dataset was still "
        "written to /out: see its dead letters and skip counts")
    counts["records_by_source"]["b.jsonl"] = 1
    assert unused_inputs(get_family("nli-dialogue"), config, {"counts": counts}) is None


def test_cli_refuses_an_unusable_format_before_the_job(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "nli-dialogue", "--input", str(SAMPLES / "uds_factuality.json"), "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("entailgen: error: input ") and "nli-dialogue takes nli-jsonl" in err[0]
    assert not out.exists()


def test_cli_exits_2_when_every_unit_of_a_file_is_a_dead_letter(tmp_path, capsys):
    path, out = tmp_path / "snli.jsonl", tmp_path / "out"
    path.write_text('{"sentence1": "A dog runs.", "sentence2": "An animal moves.", "gold_label": "-"}\n'
                    '{"sentence1": "A cat naps.", "sentence2": "A cat sleeps.", "gold_label": "?"}\n')
    assert main(["run", "nli-dialogue", "--input", str(path), "--output", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"entailgen: error: no record nli-dialogue can use came from snli.jsonl (nli-jsonl, 2 of 2 units: "
                   f"BadLabel 2). The dataset was still written to {out}: see its dead letters and skip counts"]
    assert json.loads((out / "manifest.json").read_text())["dead_letters"]["rows"] == 2


def test_an_input_of_dead_letters_only_is_refused_with_its_reasons_counted(tmp_path, capsys):
    """Eight documents, five too long and three with a NUL: the line counts why, per input, not the formats taken;
    the other input's units are its own (one dead, two skipped, their reasons named: no other input has skips)."""
    bad, mixed, out = tmp_path / "bad.jsonl", tmp_path / "mixed.jsonl", tmp_path / "out"
    bad.write_text("".join(json.dumps({"text": text}) + "\n" for text in ["Anna won. " * 5001] * 5 + ["A\u0000B."] * 3))
    mixed.write_text("{not json\n" + json.dumps({"text": "Anna won.", "claim": "Anna won.", "label": "CORRECT"}) +
                     "\n" + json.dumps({"text": "Anna Berg won. Tom Hale lost."}) + "\n")
    assert main(["run", "document-arcs", "--input", str(bad), "--input", str(mixed), "--output", str(out),
                 "--quiet", "--rules", "restatement"]) == 2
    assert capsys.readouterr().err == (
        "entailgen: error: no record document-arcs can use came from bad.jsonl (documents, 8 of 8 units: TooLong 5, "
        "BadEncoding 3); mixed.jsonl (documents, 3 of 3 units: MalformedJson 1, skipped 2 (document-arcs:NotUsed:"
        "LabelledClaim 1, document_arcs:NoExample 1, document_arcs:restatement:NoSentenceOf6Words 1)). The dataset "
        f"was still written to {out}: see its dead letters and skip counts\n")


def test_refresh_never_points_latest_at_a_version_an_input_gave_nothing_to(tmp_path, capsys):
    reviews = tmp_path / "hotels.csv"
    reviews.write_text("text,label,item\nThe room was spotless.,1,hotel\n")  # not one of the thesis's items
    config = tmp_path / "refresh.json"
    config.write_text(json.dumps({"name": "n", "pipeline": "recast", "inputs": [str(reviews)],
                                  "root": str(tmp_path / "root"), "options": {"splits": "train=1"}}))
    assert main(["refresh", str(config)]) == 2
    assert "no record recast can use came from hotels.csv (sentiment-csv, 1 of 1 units: RecastError 1)" in \
        capsys.readouterr().err
    assert not (tmp_path / "root" / "n" / "LATEST").exists()
    assert main(["refresh", str(config)]) == 2  # the built version is not taken for a good one the next time
    assert not (tmp_path / "root" / "n" / "LATEST").exists()
