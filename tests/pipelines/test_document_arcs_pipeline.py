"""The document-arcs family end to end: per-unit accounting with inputs that really give dead letters and skips,
byte-identical shards in-process and with two worker processes, rows pyarrow / pandas read and the DAE trainer
featurises as it does dae rows, the manifest's per-rule arc labels, and one-line refusals of bad options."""
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main
from dataset_bytes import files

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

DOCUMENTS = [
    {"id": "d1", "text": "Leeds beat Hull on Saturday. The old man gave the young boy a book in Leeds.\n\n"
                         "Anna Berg opened a large office in Leeds. Anna Berg is the new mayor."},
    {"article": "Tom Hale closed a shop in Cardiff on Tuesday. The former minister, 23, said he would resign.",
     "highlights": "Tom Hale closed a shop."},
    {"id": "short", "text": "Too short."},
    {"id": "c1", "text": "Anna Berg won.", "claim": "Anna Berg won.", "label": "CORRECT"},
    {"id": "d1-again", "text": "  Leeds beat Hull on Saturday.   The old man gave the young boy a book in Leeds.\n \n"
                               "Anna Berg opened a large office in Leeds.\nAnna Berg is the new mayor.\n"},  # d1 again
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("document_arcs")
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS) + "{not json\n")
    args = ["run", "document-arcs", "--input", str(path), "--seed", "5", "--quiet"]
    out = folder / "one"
    assert main(args + ["--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    return folder, args, out, manifest, rows


def test_documents_read_are_with_output_plus_skipped_plus_dead(run):
    """Six lines: two documents with rows, the short one, the labelled claim and the second copy of d1 (whitespace
    apart) skipped, the bad line dead."""
    _, _, _, manifest, rows = run
    counts = manifest["counts"]
    assert counts["read"] == {"docs.jsonl": 6}
    assert counts["dead_by_stage"] == {"read:MalformedJson": 1}
    assert (counts["units_with_output"], counts["skipped_by_source"], counts["units_dead"]) == (
        {"docs.jsonl": 2}, {"docs.jsonl": 3}, {"docs.jsonl": 1})
    assert counts["skipped_by_reason"] == {
        "document-arcs:NotUsed:LabelledClaim": 1, "document_arcs:NoExample": 1, "document_arcs:DuplicateDocument": 1,
        **{f"document_arcs:{rule}:NoSentenceOf6Words": 1 for rule in (
            "evidence_removal", "recombination", "extrinsic_attachment", "rewording")}}
    assert {r["source_id"] for r in rows} == {"docs.jsonl:1", "docs.jsonl:2"}  # the first copy of d1 is kept
    assert len({r["id"] for r in rows}) == len(rows)


def test_every_rule_makes_rows_labelled_against_a_block_of_its_document(run):
    _, _, _, manifest, rows = run
    kinds = {r["kind"] for r in rows}
    assert kinds == {"evidence_removal", "recombination", "rewording", "extrinsic_attachment"}  # restatement: by name
    assert manifest["record_type"] == "ArcExample" and manifest["pipeline"] == "document-arcs"
    by_kind = manifest["stats"]["arc_labels"]["arcs"]
    for kind in kinds:
        of_kind = [a["entailed"] for r in rows if r["kind"] == kind for a in r["arcs"]]
        assert by_kind[kind] == {"entailed": of_kind.count(1), "not_entailed": of_kind.count(0),
                                 "unlabelled": of_kind.count(None)}
    assert all(by_kind[k]["not_entailed"] == 0 for k in ("rewording",))
    assert all(by_kind[k]["not_entailed"] > 0 for k in ("recombination", "extrinsic_attachment"))
    documents = {d.get("id"): d.get("text") or d.get("article") for d in DOCUMENTS}
    for r in rows:  # a premise is one or two sentences of its own document, never another's
        assert r["premise"].split(". ")[0] in (documents["d1"] + documents[None]).replace("\n\n", " ")
        assert r["generator"].startswith(f"document_arcs:{r['kind']}:")
    extrinsic = [r for r in rows if r["kind"] == "extrinsic_attachment"]
    assert {r["source_id"].rsplit(":", 1)[-1] for r in extrinsic} == {"1", "2"}


def test_summary_and_card_name_no_baseline_of_dae_table_2(run):
    """DAE Table 2's majority and lexical-match baselines are over the §4 kinds, which this family has none of: the
    stats, the console summary and the card say nothing of them, rather than 'None' or a blank cell."""
    from entailgen.runners.summary import summary_text

    _, _, out, manifest, _ = run
    stats = manifest["stats"]["arc_labels"]
    assert set(stats) == {"examples", "arcs", "sentence_labels", "labelled_arcs", "entailed_arc_pct"}
    line = next(x for x in summary_text(str(out), manifest).splitlines() if x.startswith("  arc_labels"))
    assert line == f"  arc_labels  {stats['labelled_arcs']} labelled arcs, {stats['entailed_arc_pct']}% entailed"
    statistics = (out / "README.md").read_text().split("## Statistics")[1].split("## Known limits")[0]
    assert "Table 2" not in statistics and "majority" not in statistics.lower() and "| lexical" not in statistics


def test_rows_read_with_pandas_and_featurise_for_the_dae_arc_model(run, tmp_path):
    """The trainer's own featuriser takes every row at its default 128 tokens (a block, not a document, is the
    premise), so `entailgen train` trains on them with no option of their own."""
    from entailgen.training.fitting.data import TASKS, featurizer, vocabulary
    from entailgen.training.fitting.features import TOO_LONG
    from trainer_fixtures import save_tiny_encoder
    from transformers import AutoTokenizer

    _, _, out, manifest, rows = run
    frame = pq.read_table(out / manifest["shards"][0]["path"]).to_pandas()
    assert list(frame.columns)[:5] == ["id", "premise", "hypothesis", "hypothesis_tokens", "arcs"]
    assert TASKS[manifest["record_type"]] == "dae"
    tokenizer = AutoTokenizer.from_pretrained(str(save_tiny_encoder(tmp_path / "encoder")))
    meta = {"relations": vocabulary(str(out), "dae", "all"), "max_length": 128}
    from entailgen.training.fitting.data import records
    features = [featurizer("dae", tokenizer, meta, 20)(r) for r in records(str(out), "all")]
    assert len(features) == len(rows) and TOO_LONG not in features
    assert all(not isinstance(f, str) for f in features)


def test_two_worker_processes_write_the_same_bytes(run):
    folder, args, out, _, _ = run
    again, two = folder / "again", folder / "two"
    assert main(args + ["--output", str(again)]) == 0
    assert main(args + ["--output", str(two), "--direct_running_mode=multi_processing",
                        "--direct_num_workers=2"]) == 0
    one = files(out)
    for other in (files(again), files(two)):
        assert one.keys() == other.keys()
        assert [k for k in one if one[k] != other[k]] == []


def test_a_document_is_in_one_split_wherever_and_however_often_the_input_holds_it(tmp_path):
    """Four documents, two of them given twice: the split follows the document's text, so no row repeats, no document
    is in two splits, each later copy is a counted DuplicateDocument skip, and renaming the file moves nothing."""
    lines = [line for line in (SAMPLES / "documents.jsonl").read_text().splitlines() if '"claim"' not in line][:4]
    again = [json.dumps({"text": "  " + json.loads(lines[i]).get("text", json.loads(lines[i]).get("article"))
                         .replace(". ", ".  ") + "\n"}) for i in (0, 2)]
    splits = {}
    for name in ("a.jsonl", "renamed.jsonl"):
        path, out = tmp_path / name, tmp_path / f"out-{name}"
        path.write_text("\n".join(lines[:2] + again[:1] + lines[2:] + again[1:]) + "\n")
        assert main(["run", "document-arcs", "--input", str(path), "--output", str(out), "--quiet",
                     "--splits", "train=0.5,test=0.5"]) == 0
        manifest = json.loads((out / "manifest.json").read_text())
        rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
        assert manifest["counts"]["skipped_by_reason"]["document_arcs:DuplicateDocument"] == 2
        assert sorted({r["source_id"].split(":")[1] for r in rows}) == ["1", "2", "4", "5"]  # lines 3, 6: copies
        assert len({r["id"] for r in rows}) == len(rows)
        by_document = {}
        for r in rows:
            by_document.setdefault(r["document_id"], set()).add(r["split"])
        assert len(by_document) == 4 and all(len(s) == 1 for s in by_document.values())
        splits[name] = {r["id"]: r["split"] for r in rows}
    assert splits["a.jsonl"] == splits["renamed.jsonl"]
    assert set(splits["a.jsonl"].values()) == {"train", "test"}


def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "document-arcs", "--sample", "--output", str(tmp_path), "--rules", "shuffle"]) == 2
    assert capsys.readouterr().err == ("entailgen: error: --rules takes evidence_removal,recombination,restatement,"
                                       "extrinsic_attachment,rewording; got 'shuffle'\n")
    assert main(["run", "document-arcs", "--sample", "--output", str(tmp_path), "--per-document", "0"]) == 2
    assert capsys.readouterr().err == "entailgen: error: --per-document must be at least 1, got 0\n"
    for flag, value, said in (("--evidence-per-document", "0", "must be at least 1, got 0"),
                              ("--reword-share", "1.5", "must be between 0 and 1, got 1.5")):
        assert main(["run", "document-arcs", "--sample", "--output", str(tmp_path), flag, value]) == 2
        assert capsys.readouterr().err == f"entailgen: error: {flag} {said}\n"
    assert main(["run", "document-arcs", "--sample", "--output", str(tmp_path), "--rewrites", "spelling"]) == 2
    assert capsys.readouterr().err == ("entailgen: error: --rewrites takes synonym,hypernym,genitive,descriptor,"
                                       "number,date,reporting_verb; got 'spelling'\n")
