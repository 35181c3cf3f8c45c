"""A model dir is opened once (issue 63): its files hashed a single time from the CLI down to the scorer, a detector's
members alike; a detector dir given as one model says to open it with Detector (issue 62)."""
import collections
import json
import os
import pickle
from pathlib import Path

import pytest

from entailgen.runners.cli import main
from entailgen.training.fitting import checkpoint
from entailgen.training.fitting.encoder import ModelDirError
from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.scoring import summac
from trainer_fixtures import toy_benchmark, toy_pair, train_pair_model, train_tiny_dae, write_dataset

HASHED = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "checksums.json")


@pytest.fixture(scope="module")
def detector(tmp_path_factory, tiny_encoder):  # noqa: F811
    """A detector dir of two members, a pair model and a DAE arc model, its detector.json as `entailgen detector`
    writes it (each member's dir and checksums)."""
    root = tmp_path_factory.mktemp("detector")
    members = {"members/pair": train_pair_model(root / "p", tiny_encoder),
               "members/dae": train_tiny_dae(root / "d", tiny_encoder)}
    d = root / "det"
    for name, model in members.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        model.rename(d / name)
    records = [{"dir": name, "checksums": summac.model_checksums(str(d / name))} for name in members]
    (d / "detector.json").write_text(json.dumps({"members": records}))
    return d


@pytest.fixture
def hashes(monkeypatch):
    """file_sha256 counted per file: {path relative to the dir counted from: calls}."""
    calls = collections.Counter()
    real = checkpoint.file_sha256

    def counted(path):
        calls[os.path.realpath(path)] += 1
        return real(path)

    monkeypatch.setattr(checkpoint, "file_sha256", counted)
    monkeypatch.setattr(summac, "file_sha256", counted)  # model_checksums' own name for it
    return calls


def member_files(detector: Path) -> dict:
    return {os.path.realpath(detector / m / f): 1 for m in ("members/pair", "members/dae") for f in HASHED}


def pairs(path: Path) -> Path:
    return write_dataset(path, "RtePair", {"test": [toy_pair(i, False) for i in range(4)]}, pipeline="recast")


@pytest.mark.parametrize("what, said", [
    (lambda tmp: ["--benchmark", "summac", str(toy_benchmark(tmp / "toy.jsonl"))], "| entailgen detector |"),
    (lambda tmp: [str(pairs(tmp / "data"))], "member pair: pair model on data (test)"),  # each member that reads it
])
def test_one_evaluate_of_a_detector_hashes_each_file_of_each_member_once(detector, hashes, tmp_path, capsys, what,
                                                                         said):
    assert main(["evaluate", str(detector), *what(tmp_path)]) == 0
    assert said in capsys.readouterr().out
    assert dict(hashes) == member_files(detector)  # was 2 to 4 times each: the CLI, Detector, scorer, load_trained


def test_one_score_of_a_detector_and_the_python_api_hash_each_file_once(detector, hashes, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "document": "the man likes a park. a dog chases.",
                                "summary": "a man likes."}) + "\n")
    assert main(["score", str(detector), "--input", str(rows), "--documents", "--output", str(tmp_path / "s"),
                 "--quiet"]) == 0
    assert dict(hashes) == member_files(detector)
    hashes.clear()
    from entailgen.training import Detector

    Detector(str(detector)).score_documents([("the man likes a park.", "a man likes.")])
    assert dict(hashes) == member_files(detector)


def test_a_model_dir_opened_once_is_taken_as_it_is_by_every_layer(detector, hashes):
    from entailgen.training.scoring.document_scorer import DocumentScorer
    from entailgen.training.scoring.inference import pair_handler
    from entailgen.training.scoring.scorers import PairScorer

    model = ModelDir.open(str(detector / "members/pair"))
    assert ModelDir.open(model) is model and model.task == "pair"
    assert model.checksums == json.loads((detector / "detector.json").read_text())["members"][0]["checksums"]
    opened = dict(hashes)
    assert opened == {os.path.realpath(detector / "members/pair" / f): 1 for f in HASHED}
    by_path = PairScorer(str(detector / "members/pair"), precision="fp32").score_many([("a dog chases", "a dog")])
    hashes.clear()
    assert PairScorer(model, precision="fp32").score_many([("a dog chases", "a dog")]) == by_path
    DocumentScorer(model, precision="fp32")
    handler = pair_handler(model)
    pickle.loads(pickle.dumps(handler)).load_model()  # a worker: the weights loaded, the files not hashed again
    assert not hashes


@pytest.mark.parametrize("scorer", ["DocumentScorer", "PairScorer", "DaeScorer"])
def test_a_detector_dir_given_as_one_model_says_to_open_it_with_detector(detector, scorer):
    from entailgen.training.scoring import document_scorer, scorers

    cls = getattr(document_scorer if scorer == "DocumentScorer" else scorers, scorer)
    with pytest.raises(ModelDirError) as e:
        cls(str(detector))
    assert str(e.value) == (f"{detector} is a detector dir (its members score together): open it with "
                            f"Detector({str(detector)!r}), not as one model")


def test_a_damaged_member_is_refused_in_todays_one_line(detector, tmp_path):
    import shutil

    from entailgen.training.scoring.detector import DetectorDir

    d = tmp_path / "d"
    shutil.copytree(detector, d)
    (d / "members/dae/tokenizer.json").write_text("{}")
    with pytest.raises(ModelDirError) as e:
        DetectorDir.open(str(d))
    assert str(e.value) == (f"{d / 'members/dae'}: tokenizer.json differs from the sha256 recorded when it was "
                            "trained (damaged or changed since)")
