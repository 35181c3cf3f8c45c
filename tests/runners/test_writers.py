"""Issue #20, the output's lifecycle: one writer per output, nothing written inside an entailgen dataset or model dir,
the trainer's API checked like the CLI, and a refused write, a full disk or a SIGTERM said in one line."""
import errno
import json
import logging
import os
import platform
import re
import signal

import pytest

from entailgen.dataset.lock import writer_lock
from entailgen.dataset.output import OutputError, check_not_inside_entailgen, entailgen_folder
from entailgen.dataset.publish import publish
from entailgen.runners.cli import main
from trainer_fixtures import (tiny_encoder, toy_example, train_tiny_dae,  # noqa: F401 (tiny_encoder: a fixture)
                              write_dataset)


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("entailgen: error: "), err
    return err[0].removeprefix("entailgen: error: ")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("The cat sat on the mat.\nDogs bark.\n")
    return path


def run_args(corpus, output, *extra):
    return ["run", "parse", "--input", str(corpus), "--output", str(output), "--quiet", "--splits", "train=1", *extra]


@pytest.fixture(scope="module")
def dae_model(tiny_encoder, tmp_path_factory):
    return train_tiny_dae(tmp_path_factory.mktemp("writers"), tiny_encoder)


@pytest.fixture
def arcs(tmp_path):
    return write_dataset(tmp_path / "arcs", "ArcExample", {"train": [toy_example(i) for i in range(4)]})


def commands(kind, corpus, arcs, dae_model, output):
    """The argv of `run`, `train` or `score` into output."""
    pairs = corpus.parent / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "a", "premise": "the dog sees the cat", "hypothesis": "the dog sees"}) + "\n")
    return {"run": run_args(corpus, output),
            "train": ["train", str(arcs), "--output", str(output), "--quiet"],
            "score": ["score", str(dae_model), "--input", str(pairs), "--output", str(output)]}[kind]


# -- item 1: two writers, one output --------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["run", "train", "score"])
def test_a_second_writer_is_refused_and_the_first_writers_build_stays(kind, tmp_path, corpus, arcs, dae_model,
                                                                      capsys):
    out = tmp_path / "out"
    with publish(str(out), "parse dataset") as building:  # the first writer, mid-build
        (tmp_path / ".out.entailgen-partial" / "first.txt").write_text("the first writer's shard")
        assert main(commands(kind, corpus, arcs, dae_model, out)) == 2
        assert one_error_line(capsys) == (f"another entailgen (pid {os.getpid()} on host {platform.node()}) is "
                                          f"writing {out}; wait for it to finish or choose another --output")
        assert (tmp_path / ".out.entailgen-partial" / "first.txt").read_text() == "the first writer's shard"
        (tmp_path / ".out.entailgen-partial" / "first.txt").unlink()
        assert building == str(tmp_path / ".out.entailgen-partial")
    assert sorted(p.name for p in out.iterdir()) == []  # the first writer's (empty) build swapped in
    assert not (tmp_path / ".out.entailgen-lock").exists()


def test_a_lock_a_killed_writer_left_is_taken_over(tmp_path, corpus):
    stale = '{"pid": 999999999, "host": "elsewhere", "padding": "longer than what replaces it"}'
    (tmp_path / ".out.entailgen-lock").write_text(stale)
    assert main(run_args(corpus, tmp_path / "out")) == 0  # its flock died with it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "out"]
    (tmp_path / ".o2.entailgen-lock").write_text(stale)
    with writer_lock(str(tmp_path / "o2")):  # what a refused writer reads: this pid and host, nothing stale
        assert json.loads((tmp_path / ".o2.entailgen-lock").read_text()) == {"pid": os.getpid(),
                                                                             "host": platform.node()}


class _Bucket:
    """Just what the writer lock uses of a GCS bucket, with GCS's generation precondition kept in a dict."""

    def __init__(self):
        self.objects: dict[str, tuple[int, str]] = {}  # name -> (generation, content)

    def blob(self, name):
        return _Blob(self, name)


class _Blob:
    def __init__(self, bucket, name):
        self.bucket, self.name, self.generation = bucket, name, None

    def upload_from_string(self, data, content_type=None, if_generation_match=None):
        from google.api_core.exceptions import PreconditionFailed

        current = self.bucket.objects.get(self.name, (0, None))[0]
        if if_generation_match is not None and if_generation_match != current:
            raise PreconditionFailed("generation mismatch")
        self.generation = current + 1
        self.bucket.objects[self.name] = (self.generation, data)

    def download_as_text(self):
        return self.bucket.objects[self.name][1]

    def delete(self, if_generation_match=None):
        from google.api_core.exceptions import PreconditionFailed

        if if_generation_match is not None and self.bucket.objects[self.name][0] != if_generation_match:
            raise PreconditionFailed("generation mismatch")
        del self.bucket.objects[self.name]


def test_on_gcs_the_lock_is_a_marker_object_made_only_if_absent(monkeypatch):
    import entailgen.dataset.lock as lock

    bucket = _Bucket()
    monkeypatch.setattr(lock, "_gcs_bucket", lambda name: bucket if name == "b" else None)
    with writer_lock("gs://b/data/out"):
        held = json.loads(bucket.objects["data/.out.entailgen-lock"][1])
        assert (held["pid"], held["host"]) == (os.getpid(), platform.node())
        with pytest.raises(OutputError, match=(
                rf"^another entailgen \(pid {os.getpid()} on host {re.escape(platform.node())}, since .+\) is writing "
                r"gs://b/data/out; wait for it to finish, or delete gs://b/data/.out.entailgen-lock if that run is "
                r"dead$")):
            with writer_lock("gs://b/data/out"):
                pass
        assert "data/.out.entailgen-lock" in bucket.objects  # the refused writer did not touch the first's marker
    assert bucket.objects == {}  # released at the end
    bucket.objects["data/.out.entailgen-lock"] = (7, "not json")  # a killed run's marker: nothing frees it
    with pytest.raises(OutputError, match="^another entailgen \\(a writer that left no pid\\)"):
        with writer_lock("gs://b/data/out"):
            pass


# -- item 2: nothing written inside an entailgen dataset or model dir, nothing unlisted deleted ----------------------

@pytest.mark.parametrize("kind", ["run", "train", "score"])
def test_an_output_inside_a_dataset_or_a_model_dir_is_refused(kind, tmp_path, corpus, arcs, dae_model, capsys):
    for home, what in ((arcs, "dae dataset"), (dae_model, "model dir")):
        out = home / "models" / "m"
        assert main(commands(kind, corpus, arcs, dae_model, out)) == 2
        assert one_error_line(capsys) == f"--output {out} is inside the entailgen {what} {home}; write it somewhere else"
        assert not (home / "models").exists()


def test_only_entailgen_folders_count(tmp_path):
    (tmp_path / "manifest.json").write_text('{"name": "a web app"}')  # another tool's manifest.json
    (tmp_path / "train.json").write_text('{"epochs": 3}')
    assert entailgen_folder(str(tmp_path)) is None
    check_not_inside_entailgen(str(tmp_path / "a" / "b"))
    (tmp_path / ".entailgen-run").write_text("{}")
    assert entailgen_folder(str(tmp_path)) == "build folder"


def test_overwrite_refuses_a_dataset_holding_files_its_manifest_does_not_list(tmp_path, corpus, capsys):
    out = tmp_path / "out"
    assert main(run_args(corpus, out)) == 0
    (out / "models" / "m").mkdir(parents=True)  # as `train --output DATASET/models/m` wrote before this issue
    (out / "models" / "m" / "model.safetensors").write_bytes(b"weights")
    assert main(run_args(corpus, out, "--overwrite")) == 2
    assert one_error_line(capsys) == (f"--overwrite would delete {out}/models/m/model.safetensors, which the manifest "
                                      f"of {out} does not list; move it out first (entailgen deletes only its own "
                                      "files)")
    assert (out / "models" / "m" / "model.safetensors").read_bytes() == b"weights"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "out"]


# -- item 3: the trainer's API makes the CLI's checks and builds beside the output -----------------------------------

def test_the_api_refuses_a_dataset_or_a_model_dir_as_output_and_replaces_a_model_only_when_asked(
        arcs, dae_model, tiny_encoder, tmp_path):
    from entailgen.training.fitting.trainer import TrainOptions, train

    card = (arcs / "manifest.json").read_bytes()
    with pytest.raises(ValueError, match=f"^--output {arcs} holds an entailgen dae dataset, not a model dir; "
                                         r"--overwrite replaces only a model dir \(choose another --output\)$"):
        train(str(arcs), str(arcs), overwrite=True)
    assert sorted(p.name for p in arcs.iterdir()) == ["manifest.json", "train-00000-of-00001.jsonl"]
    assert (arcs / "manifest.json").read_bytes() == card
    with pytest.raises(ValueError, match=r"holds an entailgen model dir: .* \(pass --overwrite to replace it\)$"):
        train(str(arcs), str(dae_model))
    model = tmp_path / "model"
    options = TrainOptions(encoder=str(tiny_encoder), epochs=1, max_length=24, progress=False)
    train(str(arcs), str(model), options)
    (model / "eval").mkdir()
    (model / "eval" / "old.json").write_text("{}")  # the old model's evaluation: not the new model's, nor to delete
    with pytest.raises(ValueError, match=f"^--overwrite would delete {model}/eval/old.json, an evaluation of the model "
                                         "it replaces; move it out first"):
        train(str(arcs), str(model), options, overwrite=True)  # issue 55: its results are the user's to keep
    (model / "eval" / "old.json").rename(tmp_path / "old.json")
    assert train(str(arcs), str(model), options, overwrite=True)["counts"]["train"]["read"] == 4
    assert not (model / "eval").exists() and "old.json" not in (model / "README.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcs", "model", "old.json"]


# -- items 4 and 5: a read-only output, a full disk and SIGTERM are one line and leave nothing ------------------------

@pytest.mark.parametrize("kind", ["run", "train", "score"])
def test_a_read_only_output_is_one_line(kind, tmp_path, corpus, arcs, dae_model, monkeypatch, capsys):
    read_only = tmp_path / "ro"
    read_only.mkdir()
    real_open = os.open

    def refused(path, *args, **kwargs):  # chmod 555 does not stop root, who runs the CI
        if str(path).startswith(str(read_only)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    assert main(commands(kind, corpus, arcs, dae_model, read_only / "out")) == 2
    assert one_error_line(capsys) == f"Permission denied: {read_only / 'out'}"
    assert list(read_only.iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_no_build_folder(tmp_path, corpus, arcs, monkeypatch, capsys):
    import entailgen.training.fitting.trainer as trainer
    import entailgen.dataset.shard as shard

    def full(output, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", output)

    monkeypatch.setattr(shard, "write_rows", full)  # inside a Beam worker: Beam wraps it in a RuntimeError
    assert main(run_args(corpus, tmp_path / "out")) == 2
    assert one_error_line(capsys) == f"No space left on device: '{tmp_path / '.out.entailgen-partial'}'"
    monkeypatch.setattr(trainer, "fit", lambda dataset, output, options, **kwargs: full(output))
    assert main(["train", str(arcs), "--output", str(tmp_path / "m")]) == 2
    assert one_error_line(capsys) == f"No space left on device: {tmp_path / '.m.entailgen-partial'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcs", "c.txt"]


class Killed(Exception):
    """What SIGTERM raises in these tests where entailgen does not handle it (by default it ends the process)."""


def terminated(signum, frame):
    raise Killed


def test_sigterm_while_a_run_or_a_training_finishes_is_one_line_exit_130_and_leaves_nothing(
        tmp_path, corpus, arcs, monkeypatch, capsys):
    import entailgen.dataset.publish as publishing
    import entailgen.training.fitting.trainer as trainer

    def sigterm(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("the SIGTERM handler should have raised")

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        monkeypatch.setattr(publishing, "write_report", sigterm)  # after the Beam job, while the dataset is finished
        assert main(run_args(corpus, tmp_path / "out")) == 130
        assert capsys.readouterr().err.strip().splitlines() == ["entailgen: interrupted"]
        monkeypatch.setattr(trainer, "fit", sigterm)
        assert main(["train", str(arcs), "--output", str(tmp_path / "m")]) == 130
        assert capsys.readouterr().err.strip().splitlines() == ["entailgen: interrupted"]
        assert signal.getsignal(signal.SIGTERM) is terminated
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcs", "c.txt"]


def test_ctrl_c_in_a_worker_logs_nothing_from_beam(tmp_path, corpus, monkeypatch):
    import entailgen.transforms.parser as parse

    def interrupted(model=None):
        os.kill(os.getpid(), signal.SIGINT)

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    beam, level = logging.getLogger("apache_beam"), logging.getLogger("apache_beam").level
    monkeypatch.setattr(parse, "load_spacy", interrupted)
    logging.getLogger().addHandler(handler)
    try:
        assert main(run_args(corpus, tmp_path / "out")) == 130
    finally:
        logging.getLogger().removeHandler(handler)
        beam.setLevel(level)  # the silence lasts till the process ends; not past this test
    assert [r.getMessage() for r in records if r.name.startswith("apache_beam")] == []


# -- issue 38: --overwrite replaces only an output of the same kind, for every command that writes -------------------

def other_outputs(root):
    """One output of each kind entailgen writes, as its marks say (what the output policy reads): a parse dataset,
    a scores dataset, a model dir and a Conv head."""
    outputs = {"parse dataset": write_dataset(root / "parsed", "ParsedSentence", {"train": []}, pipeline="parse"),
               "scores dataset": write_dataset(root / "scores", "ScoredPair", {"train": []}, pipeline="score")}
    for name, mark, content in (("model dir", "train.json", {"dataset_manifest_sha256": "0" * 64}),
                                ("Conv head", "conv.json", {"model_checksums": "0" * 64, "bins": 50})):
        folder = root / name.replace(" ", "-")
        folder.mkdir()
        (folder / mark).write_text(json.dumps(content))
        outputs[name] = folder
    return outputs


@pytest.mark.parametrize("command,kind", [("run", "parse dataset"), ("score", "scores dataset"),
                                          ("train", "model dir"), ("train-conv", "Conv head")])
def test_overwrite_replaces_only_an_output_of_the_commands_own_kind(command, kind, tmp_path, corpus, arcs, dae_model,
                                                                    capsys):
    outputs = other_outputs(tmp_path / "outputs")
    before = {p: p.read_bytes() for p in (tmp_path / "outputs").rglob("*") if p.is_file()}
    for found, output in outputs.items():
        argv = (["train-conv", str(dae_model), str(arcs), "--output", str(output), "--quiet"] if command == "train-conv"
                else commands(command, corpus, arcs, dae_model, output))
        if found == kind:
            continue  # its own kind: replaced with --overwrite, refused without (the tests above)
        assert main(argv + ["--overwrite"]) == 2
        assert one_error_line(capsys) == (f"--output {output} holds an entailgen {found}, not a {kind}; --overwrite "
                                          f"replaces only a {kind} (choose another --output)")
    assert {p: p.read_bytes() for p in (tmp_path / "outputs").rglob("*") if p.is_file()} == before
    assert not [p for p in (tmp_path / "outputs").iterdir() if p.name.startswith(".")]  # no build folder started


def test_an_interrupted_build_is_replaced_only_by_a_job_of_its_kind(tmp_path, corpus, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".entailgen-run").write_text(json.dumps({"kind": "model dir"}))  # a train cut short on gs://
    assert main(run_args(corpus, out, "--overwrite")) == 2
    assert one_error_line(capsys) == (f"--output {out} holds an interrupted build of an entailgen model dir, not a "
                                      "parse dataset; --overwrite replaces only a parse dataset (choose another "
                                      "--output)")
    (out / ".entailgen-run").write_text(json.dumps({"kind": "parse dataset"}))
    assert main(run_args(corpus, out, "--overwrite")) == 0
    assert (out / "manifest.json").is_file() and not (out / ".entailgen-run").exists()
