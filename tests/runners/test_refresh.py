"""Scheduled refresh: versions are content fingerprints, an unchanged one is a no-op, and LATEST only ever names a
complete version, even when a refresh is killed half-way."""
import json
import os
import signal
import subprocess
import sys

import pytest

from entailgen.runners.cli import main
from entailgen.runners.usage import UsageError
from entailgen.runners.refresh import (LATEST, RefreshConfig, dataset_version, option_flags, parse_refresh_config,
                                       run_config_for)
from entailgen.schemas.reader import IncompleteDataset, read_dataset

# UCI-style reviews (text, label, item); the sentiment recast makes two pairs of each (Poliak 2020 §3).
FIRST = ['"The soup was cold and the waiter ignored us.",0,restaurant',
         '"A gripping story with wonderful acting.",1,movie']
SECOND = FIRST + ['"The battery died after two days.",0,product']


def corpus(path, reviews):
    path.write_text("text,label,item\n" + "\n".join(reviews) + "\n")
    return str(path)


def write_config(tmp_path, inputs, **extra):
    doc = {"name": "news", "pipeline": "recast", "inputs": inputs, "root": str(tmp_path / "datasets"),
           "options": {"num_shards": 2, "seed": 1, "splits": "train=1"}, **extra}
    path = tmp_path / "refresh.json"
    path.write_text(json.dumps(doc))
    return str(path)


def snapshot(directory):
    """Every file under directory: relative path -> (bytes, mtime_ns)."""
    return {str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(directory.rglob("*")) if p.is_file()}


def test_options_map_to_run_flags():
    assert option_flags({"format": "jsonl", "num_shards": 2, "sample": True, "parser_model": None,
                         "quiet": False, "input": ["a.txt", "b.txt"]}) == (
        "--format=jsonl", "--num-shards=2", "--sample", "--input=a.txt", "--input=b.txt")
    assert option_flags(["--format", "jsonl"]) == ("--format", "jsonl")


def test_config_errors_name_the_key():
    with pytest.raises(UsageError, match="missing root"):
        parse_refresh_config({"name": "n", "pipeline": "parse"})
    with pytest.raises(UsageError, match="unknown key.* outputs"):
        parse_refresh_config({"name": "n", "pipeline": "parse", "root": "r", "outputs": "x"})
    with pytest.raises(UsageError, match="single path component"):
        parse_refresh_config({"name": "a/b", "pipeline": "parse", "root": "r"})


def test_version_follows_inputs_config_and_nothing_else(tmp_path):
    text = corpus(tmp_path / "news.csv", FIRST)

    def version(root="r", options=("--seed=1",), pipeline_args=(), inputs=(text,)):
        refresh = RefreshConfig("n", "recast", root, tuple(inputs), options, pipeline_args)
        return dataset_version(run_config_for(refresh))

    base = version()
    assert len(base) == 12 and base == version()
    assert version(root="elsewhere") == base  # where it is written is not what it is
    assert version(pipeline_args=("--direct_num_workers=2",)) == base  # runners give byte-identical datasets
    assert version(options=("--seed=2",)) != base
    copy = tmp_path / "copy"
    copy.mkdir()
    assert version(inputs=(corpus(copy / "news.csv", FIRST),)) == base  # same content, same name
    corpus(tmp_path / "news.csv", SECOND)
    assert version() != base


def test_refresh_builds_then_is_a_no_op_then_moves_latest(tmp_path, capsys):
    text = corpus(tmp_path / "news.csv", FIRST)
    config = write_config(tmp_path, [text])
    home = tmp_path / "datasets" / "news"
    assert main(["refresh", config]) == 0
    first = (home / LATEST).read_text().strip()
    assert "LATEST (none) -> " + first in capsys.readouterr().out
    pairs = {(r["source_id"], "did not like" in r["hypothesis"], r["label"])
             for r in read_dataset(str(home / first), "train")}
    assert pairs == {("news.csv:2", True, "entailed"), ("news.csv:2", False, "not-entailed"),
                     ("news.csv:3", True, "not-entailed"), ("news.csv:3", False, "entailed")}

    before = snapshot(home)
    assert main(["refresh", config]) == 0
    assert f"up to date, LATEST is {first}" in capsys.readouterr().out
    assert snapshot(home) == before  # nothing rewritten, not even LATEST

    corpus(tmp_path / "news.csv", SECOND)
    assert main(["refresh", config]) == 0
    second = (home / LATEST).read_text().strip()
    assert second != first and f"LATEST {first} -> {second}" in capsys.readouterr().out
    assert len(list(read_dataset(str(home / second), "train"))) == 6
    assert snapshot(home / first) == {k.split("/", 1)[1]: v for k, v in before.items() if k.startswith(first)}


def test_bad_option_is_one_line_exit_2(tmp_path, capsys):
    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"name": "n", "pipeline": "recast", "root": str(tmp_path), "inputs": [],
                                  "options": {"sample": True, "num_shards": "many"}}))
    assert main(["refresh", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--num-shards" in err[0] and "many" in err[0]


def test_yaml_config(tmp_path, capsys):
    pytest.importorskip("yaml")
    text = corpus(tmp_path / "news.csv", FIRST)
    config = tmp_path / "refresh.yaml"
    config.write_text(f"name: news\npipeline: recast\ninputs: [{text}]\nroot: {tmp_path / 'd'}\n"
                      "options: [--splits, train=1, --format, jsonl]\n")
    assert main(["refresh", str(config)]) == 0
    version = (tmp_path / "d" / "news" / LATEST).read_text().strip()
    assert (tmp_path / "d" / "news" / version / "train" / "train-00000-of-00001.jsonl").is_file()


# The refresh below stalls right after writing its first shard, so the kill lands with a half-written version on disk.
STALLING_REFRESH = """
import sys, time
import entailgen.dataset.shard as shard
real = shard.write_shard
def stall(*args, **kwargs):
    info = real(*args, **kwargs)
    print("shard written", flush=True)
    time.sleep(600)
    return info
shard.write_shard = stall
from entailgen.runners.cli import main
sys.exit(main(["refresh", sys.argv[1]]))
"""


def test_a_killed_refresh_leaves_latest_and_the_previous_version_intact(tmp_path):
    text = corpus(tmp_path / "news.csv", FIRST)
    config = write_config(tmp_path, [text])
    home = tmp_path / "datasets" / "news"
    assert main(["refresh", config]) == 0
    previous = (home / LATEST).read_text().strip()
    before = snapshot(home)

    corpus(tmp_path / "news.csv", SECOND)
    proc = subprocess.Popen([sys.executable, "-c", STALLING_REFRESH, config], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline().strip() == "shard written"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    (partial,) = [p for p in home.iterdir() if p.is_dir() and p.name != previous]  # the build folder, beside
    new = home / partial.name.removeprefix(".").removesuffix(".entailgen-partial")
    assert partial.name.startswith(".") and not new.exists()
    assert list(partial.rglob("*.parquet")) and not (partial / "manifest.json").exists()
    after = snapshot(home)
    assert {k: after.get(k) for k in before} == before  # LATEST and every file of the previous version untouched
    with pytest.raises(IncompleteDataset):
        next(read_dataset(str(partial), "train"))
    (partial / ".tmp-manifest.json").write_text("{")  # what a kill in the middle of a write leaves

    assert main(["refresh", config]) == 0  # the next scheduled run rebuilds the dead version from scratch
    assert (home / LATEST).read_text().strip() == new.name and not partial.exists()
    assert len(list(read_dataset(str(new), "train", verify=True))) == 6
    assert not [p for p in home.rglob(".*") if p.is_file()]  # no temp or staging files left behind
    assert {k: v for k, v in snapshot(home).items() if k.startswith(previous)} == \
        {k: v for k, v in before.items() if k.startswith(previous)}


def test_a_refresh_with_an_unknown_runner_is_one_line_and_exit_2(tmp_path, capsys):
    config = write_config(tmp_path, [corpus(tmp_path / "news.csv", FIRST)], pipeline_args=["--runner=NoSuchRunner"])
    assert main(["refresh", config]) == 2
    assert capsys.readouterr().err == "entailgen: error: unknown --runner NoSuchRunner\n"
    assert not (tmp_path / "datasets" / "news" / LATEST).exists()
