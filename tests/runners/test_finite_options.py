"""nan and inf are refused by every float flag and option check, values past the encoder's limit too, a non-finite
loss stops training, and the manifest is never written with a nan in it."""
import argparse
import json

import pytest
import torch

torch.set_num_threads(1)

from entailgen.dataset.manifest import dumps, write_json
from entailgen.dataset.split import SplitConfig
from entailgen.runners.cli import main
from entailgen.training.fitting.trainer import TrainOptions, stop_if_not_finite
from entailgen.transforms.flags import finite_float
from trainer_fixtures import tiny_encoder, toy_example, write_dataset  # noqa: F401 (tiny_encoder: a fixture)


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "NaN", "1e400"])
def test_finite_float_refuses_what_every_comparison_lets_through(text):
    with pytest.raises(argparse.ArgumentTypeError, match=f"must be a finite number, got '{text}'"):
        finite_float(text)
    assert finite_float("1e-4") == 1e-4 and finite_float("-0.5") == -0.5


@pytest.mark.parametrize("argv, flag", [
    (["train", "DATASET", "--output", "M", "--lr", "inf"], "--lr"),
    (["run", "recast", "--sample", "--output", "O", "--factuality-threshold", "nan"], "--factuality-threshold"),
    (["run", "paraphrase", "--sample", "--output", "O", "--min-similarity", "nan"], "--min-similarity"),
])
def test_every_float_flag_refuses_nan_and_inf(argv, flag, capsys):
    assert main(argv) == 2
    assert _error(capsys) == f"entailgen: error: argument {flag}: must be a finite number, got '{argv[-1]}'\n"


def test_split_ratios_must_be_finite(capsys):
    with pytest.raises(ValueError, match="--splits ratios must be finite numbers, got 'train=nan'"):
        SplitConfig.parse("train=nan")  # sent every row to test
    with pytest.raises(ValueError, match="split ratios must be finite"):
        SplitConfig((("train", float("nan")), ("test", 1.0)))
    assert main(["run", "recast", "--sample", "--output", "O", "--splits", "train=0.5,test=nan"]) == 2
    assert "--splits ratios must be finite numbers" in _error(capsys)


def test_train_options_refuse_non_finite_numbers():
    for lr in (float("inf"), float("nan"), 0.0):
        with pytest.raises(ValueError, match="--lr must be a positive finite number"):
            TrainOptions(lr=lr).check()
    with pytest.raises(ValueError, match="--grad-clip must be a positive finite number, got nan"):
        TrainOptions(grad_clip=float("nan")).check()


def test_a_non_finite_loss_stops_training_naming_the_step():
    stop_if_not_finite(0.69, 1, 0)
    with pytest.raises(ValueError, match=r"^training stopped at step 7 \(epoch 2\): the loss is nan; try a smaller"):
        stop_if_not_finite(float("nan"), 7, 1)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("finite") / "data", "ArcExample",
                         {"train": [toy_example(i) for i in range(16)]})


def test_training_that_diverges_fails_and_leaves_the_old_model(toy, tiny_encoder, tmp_path, capsys):
    common = ["train", str(toy), "--output", str(tmp_path / "m"), "--encoder", str(tiny_encoder), "--epochs", "1",
              "--batch-size", "4", "--quiet"]
    assert main(common) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "m").iterdir() if p.is_file()}
    capsys.readouterr()
    assert main(common + ["--overwrite", "--lr", "1e30"]) == 2  # exited 0 with nan weights
    assert "entailgen: error: training stopped at step 2 (epoch 1): the loss is nan" in _error(capsys)
    assert {p.name: p.read_bytes() for p in (tmp_path / "m").iterdir() if p.is_file()} == before


def test_max_length_past_the_encoders_limit_is_refused(toy, tiny_encoder, tmp_path, capsys):
    argv = ["train", str(toy), "--output", str(tmp_path / "m"), "--encoder", str(tiny_encoder), "--max-length", "129",
            "--quiet"]
    assert main(argv) == 2  # the tiny encoder has 128 positions; 100000 failed later with a traceback
    assert _error(capsys) == "entailgen: error: --max-length 129 is past the encoder's limit of 128 tokens\n"
    assert not (tmp_path / "m").exists()


def test_the_manifest_is_never_written_with_nan(tmp_path):
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        dumps({"threshold": float("nan")})
    with pytest.raises(ValueError, match="^manifest.json not written: Out of range float"):
        write_json(str(tmp_path), "manifest.json", {"config": {"threshold": float("nan")}})
    assert not (tmp_path / "manifest.json").exists()
    assert json.loads(dumps({"threshold": 0.5})) == {"threshold": 0.5}
