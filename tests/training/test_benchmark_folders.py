"""`evaluate MODEL --benchmark NAME DIR` reads the folder `benchmarks fetch NAME --to DIR` wrote, for every benchmark,
and gives the report its files named one by one give (DIR/*; spans' CSV and --articles); a folder
without a fetch's record, or another benchmark's, is one line."""
import csv
import json
import shutil

import pytest

from benchmark_sources import SPAN_HEADER, pinned_to_these, write_by_hand
from entailgen.runners.cli import main
from trainer_fixtures import pair_model  # noqa: F401 (a fixture: pytest finds it here)

# each benchmark's files named one by one, as DIR/* lists them (summac: DIR/*.json, fetch.json among them)
OLD_FORMS = {"summac": ["fetch.json", "frank.json", "polytope.json", "summeval.json", "xsumfaith.json"],
             "rank19": ["summary_pairs.json"],
             "true": ["begin_dev.csv", "begin_test.csv", "q2.csv"],
             "spans": ["hallucination_annotations_xsum_summaries.csv", "--articles", "xsum_articles.jsonl"]}


def scorable(folder) -> None:
    """The fetched summac and spans files given rows enough to be scored (both labels in each cut), under the names
    and in the folder the fetch wrote: the hand-made sources hold too few rows for a figure."""
    sentences = ["the man likes a park.", "a dog chases the cat.", "the woman sees a dog.", "a cat likes the man."]
    for path in (folder / "summac").glob("*.json"):
        if path.name != "fetch.json":
            path.write_text(json.dumps({f"{cut}{i}": {"document": " ".join(sentences), "claim": sentences[i],
                                                      "label": i % 2, "cut": cut}
                                        for cut in ("val", "test") for i in range(4)}))
    articles = folder / "spans" / "xsum_articles.jsonl"
    bbcids = [json.loads(line)["bbcid"] for line in articles.read_text().splitlines()]
    with open(folder / "spans" / "hallucination_annotations_xsum_summaries.csv", "w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(SPAN_HEADER)
        for bbcid in bbcids:  # one val and one test document
            for system, summary in (("S1", "the dog likes anna."), ("S2", "bob sees a cat.")):
                name = summary.split()[-1 if system == "S1" else 0].strip(".")
                rows.writerows([bbcid, system, summary, "extrinsic", name, summary.index(name) + 1,
                                summary.index(name) + len(name), worker] for worker in ("wid_0", "wid_1", "wid_2"))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Each benchmark's folder as `benchmarks fetch NAME --to DIR --from HAND` writes it from the hand-made sources."""
    root = tmp_path_factory.mktemp("fetched")
    with pytest.MonkeyPatch.context() as patch:
        pinned_to_these(patch)
        for name in OLD_FORMS:
            assert main(["benchmarks", "fetch", name, "--to", str(root / name), "--from",
                         str(write_by_hand(root / f"{name}-by-hand", name)), "--quiet"]) == 0
    scorable(root)
    return root


def evaluated(model, argv, where, capsys) -> tuple[str, dict]:
    """(the table printed, the report saved) of `evaluate` on a fresh copy of the model."""
    copy = shutil.copytree(model, where / "model")  # one name: the score cache's is the dir's
    assert main(["evaluate", str(copy), "--benchmark", *argv, "--device", "cpu"]) == 0
    (saved,) = (copy / "eval").glob("benchmark-*.json")
    report = json.loads(saved.read_text())
    report["model"]["dir"] = "MODEL"  # the copies' own paths
    return capsys.readouterr().out.replace(str(copy), "MODEL"), {"name": saved.name, **report}


@pytest.mark.parametrize("name", list(OLD_FORMS))
def test_the_fetched_folder_gives_the_report_of_its_files_named_one_by_one(name, folders, pair_model, tmp_path,
                                                                           capsys):
    folder = folders / name
    assert {p.name for p in folder.iterdir()} == {a for a in OLD_FORMS[name] if not a.startswith("--")} | {"fetch.json"}
    old = [a if a.startswith("--") else str(folder / a) for a in OLD_FORMS[name]]
    by_files = evaluated(pair_model, [name, *old], tmp_path / "by-files", capsys)
    by_folder = evaluated(pair_model, [name, str(folder)], tmp_path / "by-folder", capsys)
    assert by_folder == by_files
    assert by_folder[1]["benchmark"] == name and by_folder[0].strip()


def test_a_folder_without_a_record_or_of_another_benchmark_is_one_line(folders, tmp_path, capsys):
    (tmp_path / "m").mkdir()
    (tmp_path / "empty").mkdir()
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "true", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"entailgen: error: {tmp_path / 'empty'}: a folder is read by the fetch.json `entailgen benchmarks fetch true "
        f"--to {tmp_path / 'empty'}` writes, and it has none; give the benchmark's files")
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "spans", str(folders / "rank19")]) == 2
    assert capsys.readouterr().err.strip() == (f"entailgen: error: {folders / 'rank19'} holds a fetch of rank19, not "
                                               "of spans")
