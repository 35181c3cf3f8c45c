"""Split by context hash, shard by id hash, sorted atomic writes: the pieces that make output deterministic."""
import hashlib
import os
from collections import Counter

import apache_beam as beam
import pyarrow.parquet as pq
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.dataset import shard
from entailgen.dataset.shard import (RUNS, ShardConfig, WriteShards, _SpillRuns, encode_shard, line_row, read_run,
                                     remove_runs, shard_index, shard_path, write_shard)
from entailgen.dataset.split import AssignSplit, SplitConfig, assign_split
from entailgen.schemas.arrow import to_row
from entailgen.schemas.records import RtePair


def pair(i, premise=None, split=None):
    return RtePair(f"id{i:04d}", premise or f"premise {i}", f"hyp {i}", "entailed", "ner", "t", "s", f"s:{i}",
                   split=split)


def test_split_ratios_are_respected_on_many_contexts():
    counts = Counter(assign_split(f"context {i}", SplitConfig()) for i in range(20000))
    assert abs(counts["train"] / 20000 - 0.90) < 0.01
    assert abs(counts["dev"] / 20000 - 0.05) < 0.01
    assert abs(counts["test"] / 20000 - 0.05) < 0.01


def test_split_depends_on_context_and_seed_only():
    assert [assign_split(p, SplitConfig(seed=3)) for p in ("a premise", "p3", "p17")] == ["train", "test", "dev"]
    splits = {assign_split("same premise", SplitConfig((("a", 1), ("b", 1)), seed=s)) for s in range(20)}
    assert splits == {"a", "b"}  # the seed does move contexts between splits


def test_zero_ratio_split_gets_nothing():
    config = SplitConfig((("train", 1.0), ("dev", 0.0), ("test", 0.0)))
    assert {assign_split(str(i), config) for i in range(500)} == {"train"}


@pytest.mark.parametrize("spec", ["train=x", "train=-1,dev=2", "a=1,a=2", ""])
def test_bad_split_specs_are_rejected(spec):
    with pytest.raises(ValueError):
        SplitConfig.parse(spec)


def test_one_context_never_lands_in_two_splits():
    records = [pair(i, premise=f"shared {i % 7}") for i in range(70)]
    with TestPipeline() as p:
        out = (p | beam.Create(records) | AssignSplit(SplitConfig(), lambda r: r.premise)
               | beam.Map(lambda r: (r.premise, r.split)) | beam.Distinct()
               | beam.combiners.Count.PerKey())
        assert_that(out, equal_to([(f"shared {i}", 1) for i in range(7)]))


def test_shard_index_is_stable_and_spread():
    counts = Counter(shard_index(f"id{i}", 4) for i in range(4000))
    assert set(counts) == {0, 1, 2, 3} and min(counts.values()) > 850
    assert [shard_index("abc", 4), shard_index("id4", 4), shard_index("id6", 4)] == [1, 2, 0]


def test_shard_bytes_do_not_depend_on_arrival_order(tmp_path):
    rows = [pair(i, split="train") for i in range(50)]
    a = write_shard(str(tmp_path / "a"), "x.parquet", "train", rows, RtePair, "parquet")
    b = write_shard(str(tmp_path / "b"), "x.parquet", "train", list(reversed(rows)), RtePair, "parquet")
    assert a["sha256"] == b["sha256"] and a["rows"] == 50
    assert hashlib.sha256((tmp_path / "a" / "x.parquet").read_bytes()).hexdigest() == a["sha256"]
    assert pq.read_table(tmp_path / "a" / "x.parquet").column("id").to_pylist() == sorted(r.id for r in rows)


def test_jsonl_shard_is_the_same_rows(tmp_path):
    rows = [to_row(pair(i, split="dev")) for i in range(3)]
    lines = encode_shard(rows, RtePair, "jsonl").decode().splitlines()
    assert [l.split('"id":"')[1][:6] for l in lines] == ["id0000", "id0001", "id0002"]


def test_write_shards_writes_each_non_empty_shard_and_no_temp_files(tmp_path):
    rows = [pair(i, split="train") for i in range(20)] + [pair(100, split="test")]
    config = ShardConfig(str(tmp_path), "parquet", 2)
    test_shard = shard_path("test", shard_index("id0100", 2), 2, "parquet")
    with TestPipeline() as p:
        infos = p | beam.Create(rows) | WriteShards(config, RtePair)
        assert_that(infos | beam.Map(lambda i: (i["path"], i["rows"])), equal_to([
            (shard_path("train", 0, 2, "parquet"), sum(shard_index(r.id, 2) == 0 for r in rows[:20])),
            (shard_path("train", 1, 2, "parquet"), sum(shard_index(r.id, 2) == 1 for r in rows[:20])),
            (test_shard, 1)]))
    remove_runs(str(tmp_path))
    files = sorted(os.path.relpath(os.path.join(d, f), tmp_path) for d, _, fs in os.walk(tmp_path) for f in fs)
    assert files == sorted([test_shard, "train/train-00000-of-00002.parquet", "train/train-00001-of-00002.parquet"])
    assert sum(pq.read_table(tmp_path / f).num_rows for f in files) == 21


@pytest.mark.parametrize("kwargs", [{"format": "csv"}, {"num_shards": 0}])
def test_bad_shard_config_is_rejected(kwargs):
    with pytest.raises(ValueError):
        ShardConfig("out", **kwargs)


def test_rows_with_equal_ids_are_ordered_by_content():
    from entailgen.dataset.shard import sorted_rows

    a, b, c = pair(1, premise="zeta", split="train"), pair(1, premise="alpha", split="train"), pair(0, split="train")
    assert [r["premise"] for r in sorted_rows([a, b, c])] == [r["premise"] for r in sorted_rows([c, b, a])] == [
        "premise 0", "alpha", "zeta"]


def test_shards_merged_from_many_small_runs_are_the_shards_sorted_in_memory(tmp_path):
    rows = [pair(i, split="train") for i in range(40)] + [pair(i, split="test") for i in range(40, 47)]
    rows += [pair(3, premise="a twin of row 3", split="train")]  # equal ids: ordered by content across runs
    config = ShardConfig(str(tmp_path / "spilled"), "parquet", 2)
    with TestPipeline() as p:  # at most 4 rows held before a spill: every shard merges several runs
        infos = p | beam.Create(rows) | WriteShards(config, RtePair, run_rows=4)
        assert_that(infos | beam.Map(lambda i: i["path"]), equal_to([
            shard_path(s, i, 2, "parquet") for s, i in {(r.split, shard_index(r.id, 2)) for r in rows}]))
    for split, index in {(r.split, shard_index(r.id, 2)) for r in rows}:
        relative = shard_path(split, index, 2, "parquet")
        expected = write_shard(str(tmp_path / "in_memory"), relative, split,
                               [r for r in rows if r.split == split and shard_index(r.id, 2) == index], RtePair,
                               "parquet")
        assert (tmp_path / "spilled" / relative).read_bytes() == (tmp_path / "in_memory" / relative).read_bytes()
        assert expected["rows"] == pq.read_table(tmp_path / "spilled" / relative).num_rows
    assert len(os.listdir(tmp_path / "spilled" / RUNS)) > 3  # several runs per shard, kept until the job ends
    remove_runs(str(tmp_path / "spilled"))
    assert not (tmp_path / "spilled" / RUNS).exists()


def test_a_worker_spills_sorted_runs_and_never_holds_more_than_run_rows(tmp_path):
    spill = _SpillRuns(ShardConfig(str(tmp_path), "parquet", 1), run_rows=5)
    spill.setup()
    spill.start_bundle()
    outputs = []
    for i in reversed(range(12)):
        outputs += list(spill.process(pair(i, split="train")))
        assert spill.held < 5
    assert len(outputs) == 2  # two runs of 5, spilled while processing
    outputs += [w.value for w in spill.finish_bundle()]  # the last 2 rows, at the end of the bundle
    runs = [path for _, path in outputs]
    assert [key for key, _ in outputs] == [("train", 0)] * 3
    assert [len(list(read_run(r))) for r in runs] == [5, 5, 2]
    for r in runs:
        ids = [line_row(line)["id"] for line in read_run(r)]
        assert ids == sorted(ids)


def test_parquet_shards_are_written_a_row_group_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(shard, "ROW_GROUP", 4)
    info = write_shard(str(tmp_path), "x.parquet", "train", [pair(i, split="train") for i in range(10)], RtePair,
                       "parquet")
    assert info["rows"] == 10 and pq.ParquetFile(tmp_path / "x.parquet").num_row_groups == 3
    assert hashlib.sha256((tmp_path / "x.parquet").read_bytes()).hexdigest() == info["sha256"]
