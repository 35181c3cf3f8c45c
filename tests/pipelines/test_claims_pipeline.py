"""The claims family end to end on documents written for the test: accounting, document splits, block rows, the
FactCC export, the stats, byte-identical output in-process and with two worker processes, and back-translation."""
import json
import shutil
from collections import defaultdict

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main
from dataset_bytes import files

DOCUMENTS = [
    {"id": "d1", "text": "Mayor Helen Carrow said she can open the new bridge in Port Ellery on 4 May 2019. "
                         "The bridge cost 12 million pounds and has 3 lanes.\n\nDavid Marsh said he didn't like the "
                         "plan."},
    {"article": "Anna Berg won the race in Lyon on Sunday after a long season. She thanked her coach, Tom Hale.",
     "highlights": "Anna Berg won in Lyon."},
    {"id": "short", "text": "Too short."},
]
HAVE_APERTIUM = shutil.which("apertium") is not None
# Back-translation joins the run only where Apertium is installed; everything else runs anywhere.
TRANSFORMATIONS = ["--transformations", ("backtranslation," if HAVE_APERTIUM else "")
                   + "pronoun_swap,entity_swap,number_swap,date_swap,negation"]


def write_inputs(folder):
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS) + "{not json\n")
    return path


def rows_of(out, manifest):
    return [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    folder = tmp_path_factory.mktemp("claims")
    out = folder / "one"
    args = ["run", "claims", "--input", str(write_inputs(folder)), "--pairs", "blocks", "--export", "factcc",
            "--granularity", "2sents", "--splits", "train=0.5,test=0.5", "--seed", "3", "--summaries-as-claims", "--quiet",
            *TRANSFORMATIONS]
    assert main(args + ["--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    return folder, args, out, manifest, rows_of(out, manifest)


def test_documents_read_are_with_claims_plus_skipped_plus_dead(claims):
    """The bad JSON line is a reading-stage dead letter and still one of the documents read."""
    _, _, _, manifest, rows = claims
    counts = manifest["counts"]
    assert "documents" not in manifest["stats"]  # superseded by the job's per-unit counts
    assert counts["read"] == {"docs.jsonl": 4}
    assert counts["dead_by_stage"] == {"read:MalformedJson": 1}
    assert (counts["units_with_output"], counts["skipped_by_source"], counts["units_dead"]) == (
        {"docs.jsonl": 2}, {"docs.jsonl": 1}, {"docs.jsonl": 1})
    assert counts["skipped_by_reason"] == {"claims:NoClaim:NoSentenceOf8Tokens": 1}
    assert len({r["source_id"] for r in rows}) == counts["units_with_output"]["docs.jsonl"]


def test_manifest_has_per_transformation_counts_and_the_audit(claims):
    _, _, _, manifest, rows = claims
    balance, audit = manifest["stats"]["balance"], manifest["stats"]["audit"]
    document_rows = [r for r in rows if r["block_index"] is None]
    expected = defaultdict(lambda: defaultdict(int))
    for r in document_rows:
        expected[r["transformation"]][r["label"]] += 1
        expected[r["transformation"]]["noise"] += r["noise"]
    assert balance == {t: dict(sorted(c.items())) for t, c in sorted(expected.items())}
    assert set(balance) >= {"sentence_sampling", "negation", "entity_swap"}
    assert balance["sentence_sampling"]["CORRECT"] >= 2 and "INCORRECT" not in balance["sentence_sampling"]
    assert all("CORRECT" not in balance[t] for t in ("negation", "entity_swap", "pronoun_swap"))
    assert set(audit) == {"n_train", "majority_label", "splits", "claim_only"} and "all" in audit["claim_only"]


def test_one_document_never_spans_two_splits_and_block_rows_keep_the_document_label(claims):
    _, _, _, _, rows = claims
    splits = defaultdict(set)
    for r in rows:
        splits[r["document_id"]].add(r["split"])
    assert len(splits) == 2 and all(len(s) == 1 for s in splits.values())
    documents = [r for r in rows if r["block_index"] is None]
    for row in documents:
        assert row["premise"].count("\n\n") == (1 if "Port Ellery" in row["premise"] else 0)
        blocks = [r for r in rows if r["block_index"] is not None and r["document_id"] == row["document_id"]
                  and r["claim"] == row["claim"] and r["noise"] == row["noise"]]
        assert [b["premise"] for b in sorted(blocks, key=lambda b: b["block_index"])] == row["blocks"]
        assert {b["label"] for b in blocks} == {row["label"]}
        if row["extraction_span"]:
            start, end = row["extraction_span"]
            assert row["premise"][start:end] == row["source_sentence"]
    negated = [r for r in documents if r["transformation"] == "negation" and not r["noise"]]
    assert {r["claim"] for r in negated} & {"Mayor Helen Carrow said she cannot open the new bridge in Port Ellery "
                                            "on 4 May 2019.", "David Marsh said he did like the plan."} or \
        any(r["claim"].startswith("Anna Berg") for r in negated)


def test_summary_sentences_are_correct_claims_against_their_article(claims):
    _, _, _, _, rows = claims
    summaries = [r for r in rows if r["transformation"] == "summary" and r["block_index"] is None]
    assert [(r["claim"], r["label"], r["source_sentence"]) for r in summaries] == [
        ("Anna Berg won in Lyon.", "CORRECT", "")]
    assert summaries[0]["blocks"] == ["Anna Berg won the race in Lyon on Sunday after a long season. She thanked "
                                      "her coach, Tom Hale."]


def test_factcc_export_has_the_factcc_fields(claims):
    _, _, out, manifest, rows = claims
    exported = {e["path"]: e for e in manifest["exports"]}
    lines = [json.loads(line) for path in sorted(exported) for line in (out / path).read_text().splitlines()]
    assert sum(e["rows"] for e in exported.values()) == len(lines) == sum(r["block_index"] is None for r in rows)
    assert all(list(line) == ["id", "text", "claim", "label", "extraction_span", "backtranslation", "augmentation",
                              "augmentation_span", "noise"] for line in lines)
    assert {line["augmentation"] for line in lines} >= {None, "NegateSentences", "EntitySwap"}
    assert {line["label"] for line in lines} == {"CORRECT", "INCORRECT"}


def test_two_worker_processes_write_the_same_bytes(claims):
    folder, args, out, _, _ = claims
    two = folder / "two"
    assert main(args + ["--output", str(two), "--direct_running_mode=multi_processing",
                        "--direct_num_workers=2"]) == 0
    one, other = files(out), files(two)
    assert one.keys() == other.keys() and any(k.startswith("factcc/") for k in one)
    assert [k for k in one if one[k] != other[k]] == []


def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "claims", "--sample", "--output", str(tmp_path), "--transformations", "shuffle"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["run", "claims", "--sample", "--output", str(tmp_path), "--transformations", "negation",
                 "--round-trip-negatives"]) == 2  # nothing would round-trip them
    assert capsys.readouterr().err == ("entailgen: error: --round-trip-negatives: back-translation is not among "
                                       "--transformations\n")


@pytest.mark.skipif(not HAVE_APERTIUM, reason="apertium is not installed")
def test_backtranslation_round_trips_through_apertium(claims):
    _, _, _, manifest, rows = claims
    trips = [r for r in rows if r["transformation"] == "backtranslation" and r["block_index"] is None]
    skipped = manifest["counts"].get("skipped_transformations", {}).get("claims:backtranslation:SameAsClaim", 0)
    assert len(trips) + skipped == 2  # one sampled claim per usable document
    assert trips
    for r in trips:
        assert r["backtranslation"] and not r["noise"] and r["label"] == "CORRECT"
        assert r["generator"].startswith("apertium") and r["claim"] != r["source_sentence"]


def test_extrinsic_claims_say_what_their_document_no_longer_does(tmp_path):
    """The sentence is the INCORRECT claim; premise, blocks and source sentence hold its compression instead. Where the
    document says a dropped word elsewhere ("Leeds has a large new mayor."), the claim would be true: Skipped."""
    path = tmp_path / "docs.jsonl"
    sentence = "Anna Berg, the new mayor, opened a large office in Leeds."
    path.write_text(json.dumps({"id": "a", "text": sentence + " It has 3 floors."}) + "\n"
                    + json.dumps({"id": "b", "text": sentence + " Leeds has a large new mayor."}) + "\n")
    out = tmp_path / "out"
    assert main(["run", "claims", "--input", str(path), "--transformations", "extrinsic", "--no-noise", "--seed", "0",
                 "--quiet", "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = rows_of(out, manifest)
    assert sorted((r["source_id"], r["transformation"], r["label"]) for r in rows) == [
        ("docs.jsonl:1", "extrinsic", "INCORRECT"), ("docs.jsonl:1", "sentence_sampling", "CORRECT"),
        ("docs.jsonl:2", "sentence_sampling", "CORRECT")]
    assert manifest["counts"]["skipped_transformations"] == {"claims:extrinsic:SaidElsewhere": 1}
    row = next(r for r in rows if r["transformation"] == "extrinsic")
    assert row["claim"] == sentence  # seed 0 drops "large": the only word the document no longer says
    assert row["source_sentence"] == "Anna Berg, the new mayor, opened an office in Leeds."
    assert row["premise"] == row["source_sentence"] + " It has 3 floors."
    assert row["blocks"] == [row["source_sentence"], "It has 3 floors."] and row["extraction_span"] == [0, 52]


def test_asking_for_extrinsic_leaves_the_other_claims_as_they_were(tmp_path):
    """Extrinsic claims draw from their own seeded stream: the default run's rows come out unchanged beside them."""
    runs = {}
    for name, extra in (("default", []), ("extrinsic", ["--transformations", TRANSFORMATIONS[1] + ",extrinsic"])):
        out = tmp_path / name
        assert main(["run", "claims", "--input", str(write_inputs(tmp_path)), *(extra or TRANSFORMATIONS),
                     "--claims-per-document", "2", "--seed", "0", "--quiet", "--output", str(out)]) == 0
        runs[name] = rows_of(out, json.loads((out / "manifest.json").read_text()))
    added = [r for r in runs["extrinsic"] if r["transformation"] == "extrinsic"]
    assert added and sorted(r["id"] for r in runs["extrinsic"] if r["transformation"] != "extrinsic") == sorted(
        r["id"] for r in runs["default"])


def test_compression_is_asked_for_by_name_and_says_less_than_its_source(tmp_path):
    """Each compression claim is CORRECT and its source sentence with words left out (the article may turn a <-> an,
    the first word may gain a capital); a sentence it leaves alone is a Skipped per reason, so accounting holds."""
    out = tmp_path / "out"
    assert main(["run", "claims", "--input", str(write_inputs(tmp_path)), "--transformations", "compression",
                 "--no-noise", "--claims-per-document", "3", "--seed", "0", "--quiet", "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = rows_of(out, manifest)
    assert {r["transformation"] for r in rows} == {"sentence_sampling", "compression"}
    compressed = [r for r in rows if r["transformation"] == "compression"]
    skipped = sum(n for reason, n in manifest["counts"].get("skipped_transformations", {}).items()
                  if reason.startswith("claims:compression:"))
    sampled = [r for r in rows if r["transformation"] == "sentence_sampling"]
    assert compressed and len(compressed) + skipped == len(sampled)
    for r in compressed:
        words, source = r["claim"].lower().replace("an ", "a ").split(), r["source_sentence"].lower().replace(
            "an ", "a ").split()
        assert r["label"] == "CORRECT" and len(words) < len(source)
        it = iter(w.strip(",.") for w in source)
        assert all(w.strip(",.") in it for w in words), (r["claim"], r["source_sentence"])  # a subsequence


def test_rewording_and_role_swap_are_counted_and_the_same_bytes_again(tmp_path):
    """Asked for by name: each sampled sentence gives a rewording and a role swap, or a Skipped saying why, so read =
    with claims + skipped + dead still holds; the default run's rows come out unchanged beside them; the same seed
    writes the same bytes."""
    path = write_inputs(tmp_path)
    final = "Anna Berg, 33, beat Tom Hale in the final in Leeds on Sunday."
    path.write_text(path.read_text() + json.dumps({"id": "final", "text": final}) + "\n")
    runs = {}
    for name, extra in (("default", ""), ("own", ",rewording,role_swap"), ("again", ",rewording,role_swap")):
        out = tmp_path / name
        assert main(["run", "claims", "--input", str(path), "--transformations", TRANSFORMATIONS[1] + extra,
                     "--claims-per-document", "3", "--no-noise", "--seed", "0", "--quiet", "--output", str(out)]) == 0
        runs[name] = out, json.loads((out / "manifest.json").read_text())
    out, manifest = runs["own"]
    rows, counts = rows_of(out, manifest), manifest["counts"]
    assert counts["read"] == {"docs.jsonl": 5} and counts["units_dead"] == {"docs.jsonl": 1}
    assert counts["units_with_output"] == {"docs.jsonl": 3} and counts["skipped_by_source"] == {"docs.jsonl": 1}
    sampled = sum(r["transformation"] == "sentence_sampling" for r in rows)
    for rule in ("rewording", "role_swap"):
        made = sum(r["transformation"] == rule for r in rows)
        skipped = sum(n for reason, n in counts["skipped_transformations"].items()
                      if reason.startswith(f"claims:{rule}:"))
        assert made and made + skipped == sampled, rule
    assert {r["label"] for r in rows if r["transformation"] == "rewording"} == {"CORRECT"}
    assert [(r["label"], r["claim"]) for r in rows if r["transformation"] == "role_swap"] == [
        ("INCORRECT", "Tom Hale, 33, beat Anna Berg in the final in Leeds on Sunday.")]
    default = rows_of(*runs["default"])
    assert sorted(r["id"] for r in rows if r["transformation"] not in ("rewording", "role_swap")) == sorted(
        r["id"] for r in default)
    assert files(out) == files(runs["again"][0])
