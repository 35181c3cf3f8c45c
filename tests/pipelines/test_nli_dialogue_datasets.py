"""Families compose: nli-dialogue over a finished claims (or dae, recast) dataset, its rows as pairs with the 3-way
label their making says (a swap or a negation contradicts the source, an addition the source lacks is neutral), every
row accounted for and the shards the same on a second run; worked by hand."""
import json

import pyarrow.parquet as pq

from entailgen.runners.cli import main
from entailgen.schemas.records import THREE_WAY, ArcExample, ClaimExample, LabelledArc, RtePair, Skipped
from entailgen.schemas.sources import DatasetRow
from entailgen.transforms.augment.dialogue import dataset_pairs, split_context
from entailgen.transforms.io.texts import texts_of
from trainer_fixtures import write_dataset

RAIN = "Rain is expected this weekend."  # shares no content word with any claim below: each row's sampled negative
SOURCE = "Acme opened a large factory in Leeds on Monday."
COMPRESSED = "Acme opened a factory on Monday."  # extrinsic: the document holds this, the claim the full sentence


def claim(i: int, text: str, transformation: str, label: str = "INCORRECT", source: str = SOURCE,
          block_index=None) -> ClaimExample:
    return ClaimExample(
        id=f"c{i}", document_id=f"d{i}", premise=f"{source} {RAIN}", blocks=[source, RAIN], granularity="sentence",
        claim=text, label=label, entailment="entailed" if label == "CORRECT" else "not-entailed",
        transformation=transformation, source_sentence=source, backtranslation=False, noise=False, source="news.jsonl",
        source_id=f"news.jsonl:{i}", block_index=block_index)


CLAIMS = [claim(1, "Acme opened a large factory in York on Monday.", "entity_swap"),
          claim(2, "Acme did not open a large factory in Leeds on Monday.", "negation"),
          claim(3, SOURCE, "extrinsic", source=COMPRESSED),
          claim(4, SOURCE, "sentence_sampling", "CORRECT"),
          claim(5, SOURCE, "sentence_sampling", "CORRECT", block_index=0)]  # a block row: its label is noisy


def test_a_claims_row_gives_its_source_view_pairs_with_three_way_labels():
    def made(i):
        return [(p.premise, p.label, p.label3, p.phenomenon) for p in dataset_pairs(DatasetRow(f"c{i}", "claims",
                                                                                               CLAIMS[i - 1]), 0)]
    assert made(1) == [(SOURCE, "not-entailed", "contradiction", "claims:entity_swap"),  # a swap contradicts
                       (RAIN, "not-entailed", "neutral", "claims:entity_swap")]  # an unrelated block: neutral
    assert made(2)[0] == (SOURCE, "not-entailed", "contradiction", "claims:negation")
    assert made(3)[0] == (COMPRESSED, "not-entailed", "neutral", "claims:extrinsic")  # it adds what the source lacks
    assert made(4)[0] == (SOURCE, "entailed", "entailment", "claims:sentence_sampling")
    pairs = dataset_pairs(DatasetRow("c1", "claims", CLAIMS[0]), 0)
    assert {(p.source, p.source_id) for p in pairs} == {("claims", "c1")}  # the row is the unit it is counted by
    assert {split_context(p) for p in pairs} == {"d1"}  # one document's pairs share a split
    assert dataset_pairs(DatasetRow("c5", "claims", CLAIMS[4]), 0) == Skipped("claims", "c5", "dialogue", "block_row")
    annotated = claim(6, "Acme closed it.", "annotated")
    assert [p.label3 for p in dataset_pairs(DatasetRow("c6", "claims", annotated), 0)] == [None, "neutral"]


def test_dae_and_recast_rows_as_pairs():
    arcs = [LabelledArc(1, 0, "nsubj", "see", "dog", 1), LabelledArc(1, 2, "dobj", "see", "cat", 0)]
    swap = ArcExample("a", "the dog sees the cat", "the cat sees the dog", ["the", "cat", "sees", "the", "dog"], arcs,
                      "word_swap", "toy", "toy", "toy:1")
    (pair,) = dataset_pairs(DatasetRow("a", "dae", swap), 0)
    assert (pair.label, pair.label3, split_context(pair)) == ("not-entailed", "contradiction", "the dog sees the cat")
    rte = RtePair("r", "a man", "a woman", "not-entailed", "toy", "t", "toy", "toy:1")
    assert dataset_pairs(DatasetRow("r", "recast", rte), 0)[0].source == "recast"
    dialogue = RtePair("d", "a man", "I think a woman", "not-entailed", "toy", "t", "toy", "toy:1", kind="dialogue")
    assert dataset_pairs(DatasetRow("d", "recast", dialogue), 0).reason == "AlreadyDialogue"
    # parse and paraphrase take a dataset's texts: a claims row's document and claim
    assert [(t.text, t.role) for t in texts_of(DatasetRow("c1", "claims", CLAIMS[0]))] == [
        (f"{SOURCE} {RAIN}", "premise"), (CLAIMS[0].claim, "claim")]


def run(data, out, *options: str) -> tuple[dict, list]:
    assert main(["run", "nli-dialogue", "--input", str(data), "--output", str(out), "--quiet", *options]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    return manifest, [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]


def test_nli_dialogue_reads_a_claims_dataset_and_accounts_for_every_row(tmp_path):
    data = write_dataset(tmp_path / "claims", "ClaimExample", {"train": CLAIMS[:3], "test": CLAIMS[3:]},
                         pipeline="claims")
    manifest, rows = run(data, tmp_path / "out")
    counts = manifest["counts"]
    # 4 rows with 2 pairs each (source + sampled negative), each pair kept and copied with a phrase: 16; the block row
    # is skipped, counted
    assert counts["total"] == {"read": 5, "written": 16, "dead_letters": 0, "skipped": 1}
    assert counts["read"] == {"claims": 5} and counts["units_with_output"] == {"claims": 4}
    assert counts["skipped_by_source"] == {"claims": 1} and counts["skipped_by_reason"] == {"dialogue:block_row": 1}
    originals = sorted((r["source_id"], r["premise"] == RAIN, r["label3"]) for r in rows if r["kind"] == "original")
    assert originals == [("c1", False, "contradiction"), ("c1", True, "neutral"),
                         ("c2", False, "contradiction"), ("c2", True, "neutral"),
                         ("c3", False, "neutral"), ("c3", True, "neutral"),
                         ("c4", False, "entailment"), ("c4", True, "neutral")]
    assert all(r["label3"] in THREE_WAY for r in rows)  # a 3-way model trains on these alone (a contradiction class)
    splits = {}
    for r in rows:
        splits.setdefault(json.loads(r["provenance"])["context"], set()).add(r["split"])
    assert all(len(s) == 1 for s in splits.values())  # a document's pairs in one split
    assert manifest["inputs"][0]["name"] == "claims"  # the input is the dataset: its manifest's sha256
    from entailgen.training.fitting.data import vocabulary

    assert vocabulary(str(tmp_path / "out"), "pair", "all") == list(THREE_WAY)
    again, _ = run(data, tmp_path / "again")
    assert [s["sha256"] for s in again["shards"]] == [s["sha256"] for s in manifest["shards"]]  # deterministic


def test_no_copies_gives_the_same_pairs_without_their_dialogue_copies(tmp_path):
    # Table 2's base (Steen et al. 2023): the augmentation's ablation, the same 8 pairs alone, every row accounted for
    data = write_dataset(tmp_path / "claims", "ClaimExample", {"train": CLAIMS[:3], "test": CLAIMS[3:]},
                         pipeline="claims")
    _, with_copies = run(data, tmp_path / "copies")
    manifest, rows = run(data, tmp_path / "alone", "--no-copies")
    assert manifest["counts"]["total"] == {"read": 5, "written": 8, "dead_letters": 0, "skipped": 1}
    assert manifest["config"]["family"]["copies"] is False  # the ablation is in the manifest, not only in its name
    assert {r["kind"] for r in rows} == {"original"}
    assert sorted((r["id"], r["label3"], r["split"]) for r in rows) == sorted(
        (r["id"], r["label3"], r["split"]) for r in with_copies if r["kind"] == "original")


def test_a_folder_that_is_not_a_dataset_is_one_line(tmp_path, capsys):
    folder = tmp_path / "half"
    folder.mkdir()
    assert main(["run", "nli-dialogue", "--input", str(folder), "--output", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: input {folder} is a folder but not an entailgen dataset (it "
                                       f"has no manifest.json); give a finished dataset's folder, or files or a glob "
                                       f"(e.g. {folder}/*)\n")
    data = write_dataset(tmp_path / "claims", "ClaimExample", {"train": CLAIMS[:1]}, pipeline="claims")
    assert main(["run", "claims", "--input", str(data), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "entailgen-dataset" in err and "claims does not use" in err and len(err.splitlines()) == 1


def test_a_folder_of_datasets_names_them_a_glob_of_a_datasets_files_names_its_folder_and_a_glob_of_datasets_runs(
        tmp_path, capsys):
    # issue 55, item 11: "give files or a glob" led to a glob that fails on the dataset's README
    datasets = tmp_path / "datasets"
    a = write_dataset(datasets / "a", "ClaimExample", {"train": CLAIMS[:3]}, pipeline="claims")
    b = write_dataset(datasets / "b", "ClaimExample", {"train": CLAIMS[3:]}, pipeline="claims")
    (a / "README.md").write_text("# a card")
    out = str(tmp_path / "out")
    assert main(["run", "nli-dialogue", "--input", str(datasets), "--output", out]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: input {datasets} is a folder but not an entailgen dataset (it "
                                       f"has no manifest.json); the datasets in it are inputs: {a}, {b}\n")
    assert main(["run", "nli-dialogue", "--input", f"{a}/*", "--output", out]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: {a}/* matches {a}/README.md, a file of the entailgen dataset "
                                       f"{a}; give the dataset's folder (--input {a}): its rows are read through its "
                                       "manifest\n")
    assert main(["run", "nli-dialogue", "--input", f"{datasets}/*", "--output", out, "--quiet"]) == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert sorted(i["name"] for i in manifest["inputs"]) == ["a", "b"] and manifest["counts"]["total"]["read"] == 5
