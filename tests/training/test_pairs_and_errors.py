"""The sentence-pair classifier on recast-style rows, and the trainer CLI's one-line errors."""
import json

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.schemas.records import RtePair
from entailgen.training.scoring.evaluation import evaluate
from entailgen.training.fitting.trainer import TrainOptions, train
from trainer_fixtures import write_dataset

torch.set_num_threads(1)
NOUNS = ["dog", "cat", "man", "woman"]


def pair(i: int, three_way: bool = False) -> RtePair:
    """'the N sees a park': entailed when the hypothesis names a dog, whatever the premise says."""
    noun = NOUNS[i % 4]
    label = "entailed" if noun == "dog" else "not-entailed"
    label3 = ("entailment" if noun == "dog" else "contradiction" if noun == "cat" else "neutral") if three_way else None
    return RtePair(f"p{i}", f"the {NOUNS[(i // 4) % 4]} sees a park", f"a {noun} sees", label, "toy", "t", "toy",
                   f"toy:{i}", label3=label3)


@pytest.fixture(scope="module")
def pairs_dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("pairs") / "data"
    write_dataset(root, "RtePair", {"train": [pair(i) for i in range(32)], "test": [pair(i) for i in range(32, 48)]},
                  pipeline="recast")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["stats"] = {"audit": {"toy": {"n": 48, "n_test": 16, "majority_accuracy": 75.0,
                                           "hypothesis_only_accuracy": 100.0}}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


@pytest.fixture(scope="module")
def pair_model(pairs_dataset, tiny_encoder, tmp_path_factory):
    out = tmp_path_factory.mktemp("pm") / "m"
    train(str(pairs_dataset), str(out), TrainOptions(encoder=str(tiny_encoder), epochs=8, batch_size=8, lr=3e-3,
                                                     progress=False))
    return out


def test_pair_classifier_learns_and_reports_the_audit_baselines(pairs_dataset, pair_model):
    result = evaluate(str(pair_model), str(pairs_dataset), "test", device="cpu")
    assert result["overall"]["n"] == 16 and result["overall"]["accuracy"] == 100.0
    assert result["per_phenomenon"]["toy"] == {"n": 16, "accuracy": 100.0, "majority_accuracy": 75.0,
                                               "hypothesis_only_accuracy": 100.0, "baseline_n_test": 16}
    assert json.loads((pair_model / "config.json").read_text())["entailgen"]["labels"] == ["entailed", "not-entailed"]


def test_three_way_rows_give_a_three_way_classifier_through_the_cli(tiny_encoder, tmp_path, capsys):
    data = write_dataset(tmp_path / "d3", "RtePair", {"train": [pair(i, True) for i in range(8)]}, pipeline="recast")
    assert main(["train", str(data), "--output", str(tmp_path / "m3"), "--encoder", str(tiny_encoder), "--epochs", "1",
                 "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "m3")
    summary = json.loads((tmp_path / "m3" / "train.json").read_text())
    assert summary["counts"]["train"] == {"read": 8, "used": 8} and summary["best_epoch"] == 1
    assert json.loads((tmp_path / "m3" / "config.json").read_text())["entailgen"]["labels"] == [
        "entailment", "neutral", "contradiction"]


def one_line_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


def test_dataset_without_manifest_is_refused(tmp_path, capsys):
    (tmp_path / "half").mkdir()
    assert one_line_error(capsys, ["train", str(tmp_path / "half"), "--output", str(tmp_path / "m")]) == (
        f"entailgen: error: {tmp_path / 'half'} has no manifest.json: not an entailgen dataset, or its run did not "
        "finish")


def test_recast_dataset_given_to_a_dae_model_is_refused(pairs_dataset, pair_model, tmp_path, capsys):
    meta = json.loads((pair_model / "config.json").read_text())
    meta["entailgen"].update(task="dae", record_type="ArcExample", relations=["<unk>"])
    dae_model = tmp_path / "dae_model"
    dae_model.mkdir()
    (dae_model / "config.json").write_text(json.dumps(meta))
    assert one_line_error(capsys, ["evaluate", str(dae_model), str(pairs_dataset)]) == (
        f"entailgen: error: {dae_model} is a dae model trained on ArcExample records; {pairs_dataset} holds RtePair "
        "records")


def test_encoder_dir_without_safetensors_is_refused(pairs_dataset, tmp_path, capsys):
    encoder = tmp_path / "enc"
    encoder.mkdir()
    (encoder / "pytorch_model.bin").write_bytes(b"not loaded")
    assert one_line_error(capsys, ["train", str(pairs_dataset), "--output", str(tmp_path / "m"), "--encoder",
                                   str(encoder)]) == (
        f"entailgen: error: encoder dir {encoder} has no *.safetensors weights (only safetensors are loaded)")


def test_bad_options_and_outputs_are_refused(pairs_dataset, tmp_path, capsys):
    assert one_line_error(capsys, ["train", str(pairs_dataset), "--output", str(tmp_path / "m"), "--epochs", "0"]) \
        == "entailgen: error: --epochs must be at least 1, got 0"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "important.txt").write_text("keep me")
    assert one_line_error(capsys, ["train", str(pairs_dataset), "--output", str(tmp_path / "notes"),
                                   "--overwrite"]).endswith("(entailgen replaces only its own outputs; choose another "
                                                            "--output)")
    assert (tmp_path / "notes" / "important.txt").read_text() == "keep me"


def test_a_dataset_without_a_usable_example_is_refused_and_the_old_model_stays(pair_model, tiny_encoder, tmp_path,
                                                                               capsys):
    """Only unlabelled arcs: nothing to learn from, so no model is written and the model at --output is kept."""
    from entailgen.schemas.records import ArcExample, LabelledArc

    unlabelled = [ArcExample(f"u{i}", "a dog sees", "a dog sees", ["a", "dog", "sees"],
                             [LabelledArc(2, 1, "nsubj", "see", "dog", None)], "top1", "toy", "toy", f"toy:{i}")
                  for i in range(4)]
    import shutil

    dataset = write_dataset(tmp_path / "unlabelled", "ArcExample", {"train": unlabelled})
    model = tmp_path / "model"  # the module's model without the eval reports other tests wrote (--overwrite keeps them)
    shutil.copytree(pair_model, model, ignore=shutil.ignore_patterns("eval"))
    before = (model / "model.safetensors").read_bytes()
    assert one_line_error(capsys, ["train", str(dataset), "--output", str(model), "--overwrite",
                                   "--encoder", str(tiny_encoder), "--quiet"]) == (
        f"entailgen: error: no usable training example in {dataset} ({{'read': 4, 'no_labelled_arcs': 4}})")
    assert (model / "model.safetensors").read_bytes() == before
    assert not list(model.parent.glob(".*partial"))


def test_pairs_with_a_label_the_model_never_saw_are_counted_apart_not_wrong():
    import dataclasses

    from entailgen.training.scoring.evaluation import evaluate_pairs

    entailed, odd = pair(0), dataclasses.replace(pair(4), label="unknown")  # 'a dog sees': entailed
    result = evaluate_pairs([(entailed, None, torch.tensor([0.1, 0.9])), (odd, None, torch.tensor([0.1, 0.9]))],
                            ["not-entailed", "entailed"], {})
    assert (result["overall"]["n"], result["overall"]["accuracy"], result["unknown_label"]) == (1, 100.0, 1)
