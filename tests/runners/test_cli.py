"""End to end through the CLI: determinism across runner modes, accounting, clear errors, readable output."""
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main


def files(root: Path) -> dict[str, bytes]:
    """Every file of a dataset but run.json (which records times and flags), by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "run.json"}


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    """The parse sample built twice: in-process direct runner, and multi-processing with two workers."""
    root = tmp_path_factory.mktemp("runs")
    one, two = root / "one", root / "two"
    assert main(["run", "parse", "--sample", "--output", str(one), "--num-shards", "2", "--quiet"]) == 0
    assert main(["run", "parse", "--sample", "--output", str(two), "--num-shards", "2", "--quiet",
                 "--direct_running_mode=multi_processing", "--direct_num_workers=2"]) == 0
    return one, two


def test_same_inputs_and_seed_give_byte_identical_shards_and_manifest(sample_runs):
    one, two = sample_runs
    a, b = files(one), files(two)
    assert "manifest.json" in a and any(k.endswith(".parquet") for k in a)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    assert not [p for p in one.rglob(".*")]  # no runs folder, temp or staging file left behind


def test_manifest_lists_every_shard_with_rows_and_checksum(sample_runs):
    import hashlib

    one, _ = sample_runs
    manifest = json.loads((one / "manifest.json").read_text())
    on_disk = {str(p.relative_to(one)) for p in one.rglob("*.parquet")}
    assert {s["path"] for s in manifest["shards"]} | {manifest["dead_letters"]["path"]} == on_disk
    for shard in manifest["shards"]:
        data = (one / shard["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == shard["sha256"]
        assert pq.read_table(one / shard["path"]).num_rows == shard["rows"]
    assert manifest["record_type"] == "ParsedSentence" and manifest["pipeline"] == "parse"
    assert {i["name"] for i in manifest["inputs"]} == {"text.txt", "paraphrase.tsv"}
    assert manifest["metrics"]["parsed"] == manifest["counts"]["total"]["written"]


def test_inputs_equal_rows_written_plus_dead_letters(tmp_path):
    corpus = tmp_path / "corpus.txt"
    lines = [b"The cat sat on the mat.", b"", b"\xff\xfe broken bytes", b"word " * 400, b"Dogs bark loudly."]
    corpus.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out"
    assert main(["run", "parse", "--input", str(corpus), "--output", str(out), "--quiet", "--splits", "train=1"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["counts"]
    assert counts["read"] == {"corpus.txt": 5}
    assert counts["total"] == {"read": 5, "written": 2, "dead_letters": 3, "skipped": 0}
    dead = pq.read_table(out / manifest["dead_letters"]["path"]).to_pylist()
    assert sorted(d["source_id"] for d in dead) == ["corpus.txt:2", "corpus.txt:3", "corpus.txt:4"]
    assert sum(counts["dead_by_stage"].values()) == 3


def test_bad_flag_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "parse", "--sample", "--output", str(tmp_path), "--num-shard", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--num-shard" in err[0] and err[0].startswith("entailgen: error:")


def test_missing_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "parse", "--input", str(tmp_path / "nope.txt"), "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"entailgen: error: input not found: {tmp_path / 'nope.txt'}"]


def test_unknown_pipeline_is_exit_2(tmp_path, capsys):
    assert main(["run", "nope", "--sample", "--output", str(tmp_path)]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_schema_command_prints_json_schema(capsys):
    assert main(["schema", "ArcExample"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "ArcExample" and schema["properties"]["arcs"]["type"] == "array"


def test_console_script_runs(tmp_path):
    exe = Path(sys.executable).with_name("entailgen")
    result = subprocess.run([str(exe), "schema", "DeadLetter"], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout)["title"] == "DeadLetter"


def test_a_dataset_is_refused_unless_overwrite_which_replaces_it(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat on the mat.\n")
    out = tmp_path / "out"
    args = ["run", "parse", "--input", str(corpus), "--output", str(out), "--quiet"]
    assert main(args) == 0
    (out / "train" / "stale.parquet").write_bytes(b"old run")
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == (f"entailgen: error: output directory holds an entailgen parse dataset: "
                                               f"{out} (pass --overwrite to replace it)")
    assert main(args + ["--overwrite"]) == 2  # a file its manifest does not list: not entailgen's to delete
    assert capsys.readouterr().err.strip().endswith("deletes only its own files)")
    (out / "train" / "stale.parquet").unlink()
    old = (out / "manifest.json").stat().st_ino
    assert main(args + ["--overwrite"]) == 0
    assert (out / "manifest.json").stat().st_ino != old  # written while the old one still existed: replaced
