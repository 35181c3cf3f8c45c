"""Damaged model dirs and datasets are refused with one line naming the file: checksums recorded when training,
verified on load and before a scoring job; dirs written before checksums get the checks possible without them."""
import hashlib
import json
import os
import shutil

import pytest
import torch

torch.set_num_threads(1)

from entailgen.runners.cli import main
from entailgen.schemas.reader import ChecksumMismatch, UnreadableShard, read_dataset
from entailgen.training.fitting.checkpoint import load_trained
from entailgen.training.fitting.data import records
from entailgen.training.fitting.encoder import ModelDirError
from entailgen.training.scoring.evaluation import result_table
from entailgen.training.fitting.trainer import TrainOptions, train
from trainer_fixtures import toy_example, write_dataset

SAVED = {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_encoder):
    root = tmp_path_factory.mktemp("integrity")
    data = write_dataset(root / "data", "ArcExample", {"train": [toy_example(i) for i in range(16)],
                                                       "test": [toy_example(i) for i in range(16, 24)]})
    mask = os.umask(0o022)
    try:
        train(str(data), str(root / "model"), TrainOptions(encoder=str(tiny_encoder), epochs=1, batch_size=8,
                                                            progress=False))
    finally:
        os.umask(mask)
    return data, root / "model"


@pytest.fixture
def model(trained, tmp_path):
    """A fresh copy of the trained model dir, to damage."""
    return shutil.copytree(trained[1], tmp_path / "model")


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("entailgen: error: ") and err.count("\n") == 1, err
    return err


def test_training_records_each_model_file_sha256_and_writes_them_readable(trained):
    model = trained[1]
    recorded = json.loads((model / "checksums.json").read_text())
    assert set(recorded) == SAVED  # not train.json, README.md or eval/: they are written after and change
    assert recorded == {name: hashlib.sha256((model / name).read_bytes()).hexdigest() for name in SAVED}
    assert json.loads((model / "config.json").read_text())["entailgen"]["checksums"] == "checksums.json"
    assert oct((model / "model.safetensors").stat().st_mode & 0o777) == "0o644"  # was 0o600


def test_a_model_dir_without_its_tokenizer_is_refused(model, trained, capsys):
    (model / "tokenizer.json").unlink()  # the tokenizer fell back to a 5-token vocabulary, and scores were wrong
    with pytest.raises(ModelDirError, match=f"^{model} has no tokenizer.json: not a model `entailgen train` finished$"):
        load_trained(str(model))
    assert main(["evaluate", str(model), str(trained[0])]) == 2
    assert "has no tokenizer.json" in _one_line_error(capsys)


def test_damaged_weights_are_refused_before_the_scoring_job(model, tmp_path, capsys):
    weights = model / "model.safetensors"
    data = weights.read_bytes()
    half = len(data) // 2
    weights.write_bytes(data[:half] + bytes(i * 7 % 256 for i in range(len(data) - half)))  # same size, bad bytes
    message = (f"{model}: model.safetensors differs from the sha256 recorded when it was trained "
               "(damaged or changed since)")
    with pytest.raises(ModelDirError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        load_trained(str(model))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"premise": "a dog sees a cat", "hypothesis": "a dog sees a cat"}\n')
    assert main(["score", str(model), "--input", str(pairs), "--output", str(tmp_path / "out")]) == 2
    assert _one_line_error(capsys) == f"entailgen: error: {message}\n"
    assert not (tmp_path / "out").exists()


def test_a_changed_config_or_a_lost_checksums_file_is_refused(model):
    config = json.loads((model / "config.json").read_text())
    config["entailgen"]["relations"].append("amod")  # a wrong relation count: a Beam worker's traceback before
    (model / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelDirError, match="config.json differs from the sha256 recorded"):
        load_trained(str(model))
    (model / "checksums.json").unlink()
    with pytest.raises(ModelDirError, match="has no checksums.json: its config says `entailgen train` wrote one"):
        load_trained(str(model))


def _without_checksums(model):
    """The dir as an entailgen without checksums wrote it."""
    (model / "checksums.json").unlink()
    config = json.loads((model / "config.json").read_text())
    del config["entailgen"]["checksums"]
    (model / "config.json").write_text(json.dumps(config))
    return config


def test_an_older_model_dir_still_loads_with_the_checks_it_allows(model, trained):
    config = _without_checksums(model)
    net, tokenizer, meta = load_trained(str(model))
    assert meta["relations"] == ["<unk>", "dobj", "nsubj"] and len(tokenizer) == 31
    config["entailgen"]["relations"].append("amod")
    (model / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelDirError, match=r"model.safetensors has relation.weight of shape \[3, 32\] but config.json "
                                           r"needs \[4, 32\]"):
        load_trained(str(model))  # was a RuntimeError from load_state_dict (a 161-line traceback in a worker)


def test_truncated_weights_of_an_older_dir_are_one_line(model, trained, capsys):
    _without_checksums(model)
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:5000])
    with pytest.raises(ModelDirError, match=r"model.safetensors is damaged or truncated \(Error while deserializing"):
        load_trained(str(model))
    assert main(["evaluate", str(model), str(trained[0])]) == 2
    assert "model.safetensors is damaged or truncated" in _one_line_error(capsys)


def test_training_reads_shards_against_the_manifest_sha256(trained, tmp_path, capsys):
    data = shutil.copytree(trained[0], tmp_path / "data")
    shard = data / "train-00000-of-00001.jsonl"
    shard.write_text(shard.read_text().replace("sees", "likes"))  # same rows, valid JSON, other bytes
    assert len(list(read_dataset(str(data), "train"))) == 16  # without verify: read as it is
    with pytest.raises(ChecksumMismatch, match="^train-00000-of-00001.jsonl in .*: sha256 differs from the manifest"):
        list(records(str(data), "train"))  # what train and evaluate read
    assert main(["train", str(data), "--output", str(tmp_path / "m"), "--quiet", "--epochs", "1"]) == 2
    assert "train-00000-of-00001.jsonl in " in _one_line_error(capsys)
    assert not (tmp_path / "m").exists()


def test_a_deleted_or_corrupt_shard_given_to_evaluate_is_one_line(trained, tmp_path, capsys):
    data = shutil.copytree(trained[0], tmp_path / "data")
    (data / "test-00000-of-00001.jsonl").unlink()
    with pytest.raises(UnreadableShard, match=r"^test-00000-of-00001.jsonl is missing from .* \(its manifest lists"):
        list(read_dataset(str(data), "test"))
    assert main(["evaluate", str(trained[1]), str(data)]) == 2
    assert "test-00000-of-00001.jsonl is missing" in _one_line_error(capsys)
    (data / "test-00000-of-00001.jsonl").write_bytes(b'{"id": "x", \xff\n')
    with pytest.raises(UnreadableShard, match="^test-00000-of-00001.jsonl in .* cannot be read"):
        list(read_dataset(str(data), "test"))  # not verified: the parse error, named
    with pytest.raises(ChecksumMismatch):
        list(read_dataset(str(data), "test", verify=True))  # verified: the real cause


def test_evaluate_tables_show_a_dash_where_a_value_is_missing():
    group = {"n": 3, "accuracy": 66.67, "majority_accuracy": 66.67, "lexical_match_accuracy": None, "f1": None}
    result = {"task": "dae", "dataset_name": "d", "split": "test", "counts": {"read": 3}, "overall": group,
              "sentence": {"definition": "mean", "n": 0, "accuracy": None, "majority_accuracy": None}}
    table = result_table(result)
    assert "None" not in table
    assert "| all | 3 | 66.67 | 66.67 | - | - |" in table
    assert "sentence level: accuracy - on 0 hypotheses (majority -); mean" in table


def test_nan_weights_of_an_older_dir_are_refused(model):
    from safetensors.torch import load_file, save_file

    _without_checksums(model)
    weights = load_file(str(model / "model.safetensors"))
    weights["classifier.bias"][0] = float("nan")  # what random bytes over half the file gave: scores of nan
    save_file(weights, str(model / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(ModelDirError, match="model.safetensors holds nan or inf weights"):
        load_trained(str(model))


def test_evaluate_prints_its_metrics_even_when_the_model_dir_cannot_take_the_eval_file(model, trained, monkeypatch,
                                                                                      capsys):
    real_makedirs = os.makedirs

    def read_only(path, *args, **kwargs):  # root ignores chmod: the refusal a read-only model dir gives
        if str(path).startswith(str(model)):
            raise PermissionError(13, "Permission denied", str(path))
        return real_makedirs(path, *args, **kwargs)

    monkeypatch.setattr(os, "makedirs", read_only)
    assert main(["evaluate", str(model), str(trained[0])]) == 2
    out, err = capsys.readouterr()
    assert "majority" in out and "lexical match" in out  # the table came out before the write failed
    assert err.startswith("entailgen: error: Permission denied: ") and err.count("\n") == 1, err
    assert not (model / "eval").exists()
