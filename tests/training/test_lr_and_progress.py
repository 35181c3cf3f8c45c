"""The default learning rate follows the encoder's size, and training shows progress as lines, not a repainted bar,
when stderr is not a terminal (and nothing with --quiet); a label the kept model never predicts on dev is warned of."""
import json
from types import SimpleNamespace

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.training.fitting.model_card import never_predicted
from entailgen.training.fitting.trainer import auto_lr
from trainer_fixtures import toy_example, write_dataset

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("lr")
    return write_dataset(root / "data", "ArcExample", {"train": [toy_example(i) for i in range(8)],
                                                       "dev": [toy_example(i) for i in range(8, 12)]})


def test_auto_lr_is_the_authors_for_bert_size_encoders_and_larger_for_smaller_ones():
    def encoder(hidden):
        return SimpleNamespace(config=SimpleNamespace(hidden_size=hidden))

    assert [auto_lr(encoder(h)) for h in (1024, 768, 767, 384, 32)] == [2e-5, 2e-5, 1e-4, 1e-4, 1e-4]


def test_train_without_lr_records_the_lr_auto_chose_and_shows_progress_lines(small_dataset, tiny_encoder, tmp_path,
                                                                              capsys):
    out = tmp_path / "m"
    assert main(["train", str(small_dataset), "--output", str(out), "--encoder", str(tiny_encoder), "--epochs", "1",
                 "--max-length", "24"]) == 0
    trained = json.loads((out / "train.json").read_text())
    assert trained["options"]["lr"] == 1e-4  # the tiny encoder's hidden size is 32
    assert "lr 0.0001," in (out / "README.md").read_text()
    err = capsys.readouterr().err
    assert "\r" not in err  # stderr is no terminal here: lines, not a bar repainted in place
    bars = [line for line in err.splitlines() if line.startswith("train dae:")]
    assert bars[0].startswith("train dae:   0%") and "8/8" in bars[-1]


def test_the_bar_counts_examples_as_they_are_trained_not_rows_read_into_the_shuffle_buffer(
        small_dataset, tiny_encoder, tmp_path, monkeypatch):
    import entailgen.training.fitting.trainer as trainer

    bars, done_at_step = [], []
    real_bar, real_loss = trainer.progress_bar, trainer.loss_of
    monkeypatch.setattr(trainer, "progress_bar", lambda *a, **k: bars.append(real_bar(*a, **k)) or bars[-1])
    monkeypatch.setattr(trainer, "loss_of", lambda *a: done_at_step.append(bars[0].n) or real_loss(*a))
    trainer.train(str(small_dataset), str(tmp_path / "m"), trainer.TrainOptions(
        encoder=str(tiny_encoder), epochs=2, batch_size=4, max_length=24))
    # 8 rows, batches of 4, 2 epochs: the bar stood at 0, 4, 8, 12 before each step (it said 8 of 8 before the
    # first step when it counted rows read into the shuffle buffer)
    assert done_at_step == [0, 4, 8, 12] and bars[0].n == 16


def test_train_quiet_prints_only_the_model_dir(small_dataset, tiny_encoder, tmp_path, capsys):
    out = tmp_path / "q"
    assert main(["train", str(small_dataset), "--output", str(out), "--encoder", str(tiny_encoder), "--epochs", "1",
                 "--max-length", "24", "--lr", "3e-3", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (f"{out}\n", "")
    assert json.loads((out / "train.json").read_text())["options"]["lr"] == 3e-3


def test_score_shows_counters_as_it_runs(small_dataset, tiny_encoder, tmp_path, monkeypatch, capsys):
    from entailgen.runners import progress
    from entailgen.training.fitting.trainer import TrainOptions, train

    train(str(small_dataset), str(tmp_path / "m"), TrainOptions(encoder=str(tiny_encoder), epochs=1, max_length=24,
                                                                progress=False))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"}\n'
                     '{"id": "b", "premise": "the dog sees the cat", "hypothesis": "?"}\n{not json\n')
    monkeypatch.setattr(progress, "line_every", lambda stream: 0.01)  # a line every 10 ms, not every 5 s
    assert main(["score", str(tmp_path / "m"), "--input", str(pairs), "--output", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert any("  read 3 (" in line for line in lines), lines
    assert lines[-1].endswith("  scored 1  dead 2")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["metrics"] == {"read": 3, "score_dead": 2, "scored": 1}


def test_a_label_the_model_never_predicts_on_dev_is_named_even_though_its_accuracy_looks_fine():
    # bench/trials/q2_table2.py's 3-way base, seed 2, dev accuracy 80.0: it called all 240 entailed pairs contradiction
    classes = {"contradiction": {"gold": 372, "predicted": 612}, "entailment": {"gold": 240, "predicted": 0},
               "neutral": {"gold": 588, "predicted": 588}, "unused": {"gold": 0, "predicted": 0}}
    assert never_predicted(classes) == ["entailment"]
    assert never_predicted({**classes, "entailment": {"gold": 240, "predicted": 1}}) == []


def test_train_warns_of_a_label_never_predicted_on_dev_even_when_quiet(small_dataset, tiny_encoder, tmp_path, capsys):
    # lr 1e-9 leaves seed 1's initial model, which calls every dev arc entailed: 4 dev rows, 4 dobj arcs labelled not
    assert main(["train", str(small_dataset), "--output", str(tmp_path / "m"), "--encoder", str(tiny_encoder),
                 "--epochs", "1", "--max-length", "24", "--lr", "1e-9", "--seed", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "warning: the kept model never predicts 'not_entailed' on dev, which holds 4 of it; its dev accuracy is the "
        "other labels' alone (more epochs or rows may teach it)"]
    assert captured.out.strip() == str(tmp_path / "m")
