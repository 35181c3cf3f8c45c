"""The DAE arc model on a toy dataset: the loss ignores unlabelled arcs, accuracy rises, runs repeat exactly."""
import json

import pytest
import torch

torch.set_num_threads(1)  # tiny models: threads only contend on a shared machine

from entailgen.training.fitting.checkpoint import load_trained
from entailgen.training.fitting.features import IGNORE
from entailgen.training.fitting.models import loss_of
from entailgen.training.fitting.trainer import TrainOptions, train
from trainer_fixtures import toy_example, write_dataset

@pytest.fixture(scope="module")
def toy_dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy")
    return write_dataset(root / "data", "ArcExample", {"train": [toy_example(i) for i in range(48)],
                                                       "dev": [toy_example(i) for i in range(48, 64)]})


FAST = TrainOptions(epochs=4, batch_size=8, lr=3e-3, seed=1, progress=False)


def test_unlabelled_arcs_do_not_change_the_loss():
    logits = torch.tensor([[[0.3, -0.2], [1.5, 0.1], [-0.7, 0.9]]])
    labelled_only = loss_of("dae", logits[:, :2], torch.tensor([[1, 0]]))
    with_unlabelled = loss_of("dae", logits, torch.tensor([[1, 0, IGNORE]]))
    assert torch.equal(labelled_only, with_unlabelled)
    assert not torch.equal(labelled_only, loss_of("dae", logits, torch.tensor([[1, 0, 1]])))


def test_training_learns_a_label_only_the_relation_predicts(toy_dataset, tiny_encoder, tmp_path):
    untrained = train(str(toy_dataset), str(tmp_path / "m0"), TrainOptions(**{**FAST.__dict__, "lr": 1e-9, "epochs": 1,
                                                                              "encoder": str(tiny_encoder)}))
    trained = train(str(toy_dataset), str(tmp_path / "m1"), TrainOptions(**{**FAST.__dict__,
                                                                            "encoder": str(tiny_encoder)}))
    assert untrained["dev_accuracy"][-1] <= 75.0
    assert trained["dev_accuracy"][-1] == 100.0
    # 16 dev rows, each one nsubj arc labelled entailed and one dobj arc labelled not: 16 of each; the untrained
    # model (seed 1) calls all 32 arcs entailed, so its 50.0 is one label's alone, which the card then says
    assert untrained["dev_classes"] == {"not_entailed": {"gold": 16, "predicted": 0},
                                        "entailed": {"gold": 16, "predicted": 32}}
    assert trained["dev_classes"] == {"not_entailed": {"gold": 16, "predicted": 16},
                                      "entailed": {"gold": 16, "predicted": 16}}
    assert ("not_entailed 16 / 0, entailed 16 / 32. **Never predicted on dev: not_entailed**"
            in (tmp_path / "m0" / "README.md").read_text())
    assert "Never predicted" not in (tmp_path / "m1" / "README.md").read_text()
    assert trained["counts"]["train"] == {"read": 48, "used": 48}
    rate, seconds = trained["examples_per_s"], trained["train_s"]  # 4 epochs of 48; train_s is rounded to 0.1 s
    assert abs(rate * seconds - 4 * 48) <= rate * 0.05 + 0.05 * seconds + 1
    assert trained["counts"]["dev"] == {"read": 16, "used": 16}
    assert trained["steps"] == 4 * 6 and len(trained["loss_curve"]) == 24
    model_dir = tmp_path / "m1"
    assert {p.name for p in model_dir.iterdir()} >= {"model.safetensors", "config.json", "train.json", "README.md",
                                                     "tokenizer.json"}
    assert f"24 steps in {seconds} s ({rate} examples/s)" in (model_dir / "README.md").read_text()
    model, tokenizer, meta = load_trained(str(model_dir))
    assert (meta["task"], meta["relations"]) == ("dae", ["<unk>", "dobj", "nsubj"])
    written = json.loads((model_dir / "train.json").read_text())
    assert written["dataset_manifest_sha256"] == __import__("hashlib").sha256(
        (toy_dataset / "manifest.json").read_bytes()).hexdigest()


def test_same_data_options_and_seed_give_identical_weights(toy_dataset, tiny_encoder, tmp_path):
    options = TrainOptions(**{**FAST.__dict__, "epochs": 1, "encoder": str(tiny_encoder)})
    train(str(toy_dataset), str(tmp_path / "a"), options)
    train(str(toy_dataset), str(tmp_path / "b"), options)
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()
    train(str(toy_dataset), str(tmp_path / "c"), TrainOptions(**{**options.__dict__, "seed": 2}))
    assert (tmp_path / "a" / "model.safetensors").read_bytes() != (tmp_path / "c" / "model.safetensors").read_bytes()


def test_the_package_exports_the_functions_even_after_their_modules_are_imported():
    import entailgen.training.scoring.evaluation
    import entailgen.training.fitting.trainer
    from entailgen.training import DaeScorer, TrainOptions, evaluate, train  # docs/training.md's line

    assert train is entailgen.training.fitting.trainer.train
    assert evaluate is entailgen.training.scoring.evaluation.evaluate
    assert TrainOptions is entailgen.training.fitting.trainer.TrainOptions and callable(DaeScorer)


def test_overwrite_replaces_a_model_or_conv_dir_only_in_the_files_entailgen_wrote(toy_dataset, tiny_encoder, tmp_path,
                                                                                   capsys):
    from entailgen.dataset.output import CONV_HEAD, OutputError, check_output
    from entailgen.runners.cli import main

    model = tmp_path / "m"
    argv = ["train", str(toy_dataset), "--output", str(model), "--encoder", str(tiny_encoder), "--epochs", "1",
            "--quiet"]
    assert main(argv) == 0
    for mine, said in [("my_notes.txt", f"which entailgen did not write as the model dir {model}"),
                       ("my_results/r.txt", f"which entailgen did not write as the model dir {model}"),
                       ("eval/benchmark-summac.toy.json", "an evaluation of the model it replaces")]:
        (model / mine).parent.mkdir(exist_ok=True)
        (model / mine).write_text("mine")
        assert main(argv + ["--overwrite"]) == 2
        assert capsys.readouterr().err == (f"entailgen: error: --overwrite would delete {model}/{mine}, {said}; move "
                                           "it out first (entailgen deletes only its own files)\n")
        assert (model / mine).read_text() == "mine"
        (model / mine).unlink()
    assert main(argv + ["--overwrite"]) == 0  # checksums.json's files, train.json and the card: entailgen's
    conv = tmp_path / "conv"
    conv.mkdir()
    (conv / "conv.json").write_text('{"model_checksums": "ab"}')
    (conv / "conv.safetensors").write_bytes(b"weights")
    check_output(str(conv), CONV_HEAD, overwrite=True)
    (conv / "notes.md").write_text("mine")
    with pytest.raises(OutputError, match=f"would delete {conv}/notes.md, which entailgen did not write as the Conv "):
        check_output(str(conv), CONV_HEAD, overwrite=True)
