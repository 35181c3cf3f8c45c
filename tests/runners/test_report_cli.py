"""`entailgen report` and the report every run writes: same bytes either way, manifest still last, clear errors."""
import json

import pytest
import yaml

from entailgen.runners.cli import main


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A small parse dataset built through the CLI, so its card and report come from the run itself."""
    root = tmp_path_factory.mktemp("report")
    corpus = root / "corpus.txt"
    corpus.write_bytes(b"The cat sat on the mat.\nDogs bark loudly at night.\n\xff broken\n")
    out = root / "dataset"
    assert main(["run", "parse", "--input", str(corpus), "--output", str(out), "--quiet", "--splits", "train=1"]) == 0
    return out


def test_every_run_writes_the_card_and_report_before_the_manifest(dataset):
    card, page, manifest = (dataset / name for name in ("README.md", "report.html", "manifest.json"))
    assert card.exists() and page.exists()
    assert manifest.stat().st_mtime_ns >= max(card.stat().st_mtime_ns, page.stat().st_mtime_ns)
    meta = yaml.safe_load(card.read_text().split("---\n")[1])
    assert meta["license"] == "other"  # corpus.txt is no known corpus
    assert meta["dataset_info"][0]["splits"] == [{"name": "train", "num_bytes": json.loads(manifest.read_text())[
        "shards"][0]["bytes"], "num_examples": 2}]
    assert meta["dataset_info"][1]["splits"][0]["num_examples"] == 1  # the undecodable line
    assert page.read_text().count('class="arcs"') == 2


def test_report_command_rewrites_the_same_bytes(dataset, capsys):
    before = {name: (dataset / name).read_bytes() for name in ("README.md", "report.html")}
    for name in before:
        (dataset / name).unlink()
    assert main(["report", str(dataset)]) == 0
    assert capsys.readouterr().out.split() == [str(dataset / "README.md"), str(dataset / "report.html")]
    assert {name: (dataset / name).read_bytes() for name in before} == before


def test_report_of_a_directory_without_manifest_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"entailgen: error: no manifest.json in {tmp_path}: not a dataset, or its run did not finish"]


def test_negative_example_count_is_a_usage_error(dataset, capsys):
    assert main(["report", str(dataset), "--examples", "-1"]) == 2
    assert "--examples must be 0 or more" in capsys.readouterr().err


def test_a_corrupt_shard_is_one_line_naming_it(dataset, tmp_path, capsys):
    import shutil

    copy = shutil.copytree(dataset, tmp_path / "copy")
    shard = json.loads((copy / "manifest.json").read_text())["shards"][0]["path"]
    (copy / shard).write_bytes(b"not parquet at all")  # was pyarrow's ArrowInvalid traceback
    assert main(["report", str(copy)]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: {shard} in {copy} cannot be read (Parquet magic bytes not "
                                       "found in footer. Either the file is corrupted or this is not a parquet "
                                       "file.); the dataset is damaged\n")
