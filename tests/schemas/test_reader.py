"""Trainer-side reading: manifest-driven, checksum-verified, shard-aware across DataLoader workers, and loadable by
Hugging Face datasets and pandas with the nested arcs intact."""
import json

import pytest

from entailgen.dataset.manifest import MANIFEST, build_manifest, write_json
from entailgen.dataset.shard import DEAD_LETTERS, shard_index, shard_path, write_shard
from entailgen.schemas.arrow import to_row
from entailgen.schemas.reader import (ChecksumMismatch, IncompleteDataset, ShardedIterableDataset, load_manifest,
                                      read_dataset)
from entailgen.schemas.records import ArcExample, LabelledArc, dead_letter

SPLITS = ("train", "dev")


def example(i: int, split: str) -> ArcExample:
    """A DAE-style row: 'approved -> liquidation' is kept (1), the dropped 'of' object is 0, one arc is unlabelled."""
    arcs = [LabelledArc(1, 0, "nsubj", "approve", "committee", 1),
            LabelledArc(1, 3, "dobj", "approve", "liquidation", 1),
            LabelledArc(3, 6, "prep:of", "liquidation", f"factory{i}", 0),
            LabelledArc(6, 5, "amod", f"factory{i}", "old", None)]
    return ArcExample(id=f"ex{i:03d}", premise=f"The committee approved the liquidation of the old factory{i}.",
                      hypothesis=f"The committee approved the liquidation of the old factory{i} today.",
                      hypothesis_tokens=["The", "committee", "approved"], arcs=arcs, kind="bottom",
                      generator="test", source="paranmt.tsv", source_id=f"paranmt.tsv:{i}", beam_rank=10,
                      beam_score=-1.5 - i, label=None, split=split)


RECORDS = [example(i, SPLITS[i % 3 == 0]) for i in range(30)]
DEAD = [dead_letter("paranmt.tsv", "paranmt.tsv:99", "read", "ValueError", "no tab", "broken line")]


def write_dataset(root, fmt="parquet", num_shards=3, records=RECORDS):
    """A finished dataset laid out exactly as a run writes it: shards by id hash, dead letters, manifest last."""
    shards = []
    for split in SPLITS:
        for index in range(num_shards):
            rows = [r for r in records if r.split == split and shard_index(r.id, num_shards) == index]
            shards.append(write_shard(str(root), shard_path(split, index, num_shards, fmt), split, rows,
                                      ArcExample, fmt))
    dead = write_shard(str(root), shard_path(DEAD_LETTERS, 0, 1, fmt), DEAD_LETTERS, DEAD, type(DEAD[0]), fmt)
    staged = {"shards": shards, "dead_letters": [dead], "counts": [], "stats": [], "exports": []}
    manifest = build_manifest(version="test", pipeline="dae", record_type="ArcExample", config={}, inputs=[],
                              staged=staged, metrics={})
    write_json(str(root), MANIFEST, manifest)
    return root


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"] if isinstance(r, dict) else r.id)


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_rows_and_records_round_trip_per_split(tmp_path, fmt):
    root = write_dataset(tmp_path, fmt)
    train = [r for r in RECORDS if r.split == "train"]
    assert by_id(read_dataset(str(root), "train")) == [to_row(r) for r in by_id(train)]
    assert by_id(read_dataset(str(root), "train", as_records=True)) == by_id(train)
    assert len(list(read_dataset(str(root)))) == 30
    (arc_none,) = [a for a in next(read_dataset(str(root), "dev", as_records=True)).arcs if a.rel == "amod"]
    assert arc_none.entailed is None  # unlabelled stays unlabelled, not 0


def test_rows_come_in_manifest_order(tmp_path):
    root = write_dataset(tmp_path)
    manifest = load_manifest(str(root))
    expected = [r.id for s in manifest["shards"] if s["split"] == "dev"
                for r in sorted((x for x in RECORDS if x.split == "dev" and shard_path(
                    "dev", shard_index(x.id, 3), 3, "parquet") == s["path"]), key=lambda x: x.id)]
    assert [r["id"] for r in read_dataset(str(root), "dev")] == expected


def test_dead_letters_read_as_their_own_split(tmp_path):
    root = write_dataset(tmp_path)
    assert list(read_dataset(str(root), "dead_letters", as_records=True)) == DEAD


def test_directory_without_manifest_is_refused(tmp_path):
    root = write_dataset(tmp_path)
    (root / MANIFEST).unlink()
    with pytest.raises(IncompleteDataset, match="has no manifest.json"):
        next(read_dataset(str(root), "train"))


def test_unknown_split_names_the_ones_there(tmp_path):
    with pytest.raises(KeyError, match="dev, train"):
        next(read_dataset(str(write_dataset(tmp_path)), "test"))


def test_verify_catches_a_changed_shard(tmp_path):
    root = write_dataset(tmp_path, "jsonl")
    manifest = json.loads((root / MANIFEST).read_text())
    shard = next(s for s in manifest["shards"] if s["rows"])
    path = root / shard["path"]
    path.write_text(path.read_text().replace("committee", "committed"))
    assert len(list(read_dataset(str(root), shard["split"]))) == manifest["splits"][shard["split"]]["rows"]
    with pytest.raises(ChecksumMismatch, match=shard["path"]):
        list(read_dataset(str(root), shard["split"], verify=True))


def test_dataloader_workers_read_every_row_exactly_once(tmp_path):
    from torch.utils.data import DataLoader

    root = write_dataset(tmp_path, num_shards=4)
    dataset = ShardedIterableDataset(str(root), "train")
    ids = [row["id"] for row in DataLoader(dataset, batch_size=None, num_workers=2)]
    expected = sorted(r.id for r in RECORDS if r.split == "train")
    assert len(dataset) == len(expected) == 20
    assert sorted(ids) == expected  # no duplicates (each worker took its own shards) and nothing missed


def test_worker_takes_every_nth_shard(tmp_path, monkeypatch):
    import types

    import entailgen.schemas.reader as reader

    root = write_dataset(tmp_path, num_shards=4)
    monkeypatch.setattr(reader, "get_worker_info", lambda: types.SimpleNamespace(id=1, num_workers=2))
    dataset = ShardedIterableDataset(str(root), "train")
    wanted = {shard_path("train", 1, 4, "parquet"), shard_path("train", 3, 4, "parquet")}
    assert sorted(r["id"] for r in dataset) == sorted(
        r.id for r in RECORDS
        if r.split == "train" and shard_path("train", shard_index(r.id, 4), 4, "parquet") in wanted)


def test_hugging_face_datasets_and_pandas_read_the_parquet_shards(tmp_path):
    import pandas as pd
    from datasets import load_dataset

    root = write_dataset(tmp_path / "data")
    manifest = load_manifest(str(root))
    files = {split: [str(root / s["path"]) for s in manifest["shards"] if s["split"] == split] for split in SPLITS}
    loaded = load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "cache"))
    assert loaded["train"].column_names == list(to_row(RECORDS[0]))
    assert by_id(loaded["train"].to_list()) == by_id(read_dataset(str(root), "train"))
    assert by_id(loaded["dev"].to_list())[0]["arcs"][2] == {"head": 3, "child": 6, "rel": "prep:of",
                                                            "head_lemma": "liquidation", "child_lemma": "factory0",
                                                            "entailed": 0, "in_premise": None}
    frame = pd.concat(pd.read_parquet(f) for f in files["dev"])
    assert sorted(frame["id"]) == sorted(r.id for r in RECORDS if r.split == "dev")
    assert list(frame.columns) == loaded["dev"].column_names
