"""Training on Accelerate: a run killed in epoch 2 of 3 goes on from its checkpoint to the uninterrupted run's weights;
a damaged checkpoint or another recipe is refused in one line; gradient accumulation and two CPU processes (gloo)
train what one process with the whole batch trains."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

torch.set_num_threads(1)  # tiny models: threads only contend on a shared machine

from entailgen.runners.cli import main
from entailgen.training.fitting.processes import shares, updates_per_epoch
from trainer_fixtures import save_tiny_encoder, toy_example, write_dataset

ROOT = Path(__file__).resolve().parents[3]  # the folder holding the entailgen package (PYTHONPATH)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """48 train rows (6 steps of 8 an epoch) and 16 dev rows."""
    return write_dataset(tmp_path_factory.mktemp("resume") / "data", "ArcExample",
                         {"train": [toy_example(i) for i in range(48)],
                          "dev": [toy_example(i) for i in range(48, 64)]})


@pytest.fixture(scope="module")
def still_encoder(tmp_path_factory):
    """The tiny encoder without dropout: batches split over steps or processes then compute the same numbers."""
    directory = save_tiny_encoder(tmp_path_factory.mktemp("still"))
    config = json.loads((directory / "config.json").read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def argv(data, output, encoder, *more):
    return ["train", str(data), "--output", str(output), "--encoder", str(encoder), "--epochs", "3", "--batch-size",
            "8", "--lr", "3e-3", "--seed", "1", "--checkpoint-every", "4", "--quiet", *more]


def weights(model_dir) -> dict:
    from safetensors.torch import load_file

    return load_file(str(Path(model_dir) / "model.safetensors"))


def stop_at_step(step: int, how: str) -> str:
    """Python that runs the CLI and is stopped as training reaches `step` (before its update): SIGKILL or Ctrl-C."""
    stop = "os.kill(os.getpid(), signal.SIGKILL)" if how == "kill" else "raise KeyboardInterrupt"
    return ("import os, signal, sys\n"
            "import entailgen.training.fitting.trainer as t\n"
            "check = t.stop_if_not_finite\n"
            "def stopping(loss, step, epoch):\n"
            f"    if step == {step}:\n"
            f"        {stop}\n"
            "    check(loss, step, epoch)\n"
            "t.stop_if_not_finite = stopping\n"
            "from entailgen.runners.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")


def run_stopped(args: list, step: int, how: str) -> subprocess.CompletedProcess:
    """The CLI in a fresh process, stopped at `step`."""
    return in_a_process(["-c", stop_at_step(step, how), *args])


def in_a_process(args: list) -> subprocess.CompletedProcess:
    """Python in a fresh process of one thread: the runs a byte-for-byte comparison sets side by side compute in the
    same surroundings (a test worker's earlier tests may leave torch's threads or kernels otherwise)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{Path(__file__).parents[1]}", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=300)


def trained(args: list) -> subprocess.CompletedProcess:
    """`entailgen train ...` run to its end in a fresh process (in_a_process)."""
    done = in_a_process(["-m", "entailgen.runners.cli", *args])
    assert done.returncode == 0, done.stderr
    return done


def build_folder(output: Path) -> Path:
    return output.parent / f".{output.name}.entailgen-partial"


def test_the_rounds_give_every_process_a_batch_and_the_schedule_counts_the_steps():
    batches = [[1] * 8, [2] * 8, [3] * 8, [4] * 5]
    assert list(shares(batches, 1, 0)) == [([1] * 8, 8, False), ([2] * 8, 8, False), ([3] * 8, 8, False),
                                           ([4] * 5, 5, True)]
    # two processes: rounds of two batches; the last round has one, which the second process trains again
    assert list(shares(batches, 2, 0)) == [([1] * 8, 16, False), ([3] * 8, 13, True)]
    assert list(shares(batches[:3], 2, 1)) == [([2] * 8, 16, False), ([3] * 8, 8, True)]
    assert list(shares([], 2, 0)) == []
    # 48 rows of 8: 6 batches; 2 processes: 3 rounds; --grad-accum 2: a step every 2 rounds and at the end
    assert [updates_per_epoch(48, 8, 1, 1), updates_per_epoch(48, 8, 2, 1), updates_per_epoch(48, 8, 2, 2),
            updates_per_epoch(49, 8, 1, 3)] == [6, 3, 2, 3]


def test_a_run_killed_in_epoch_2_of_3_goes_on_to_the_uninterrupted_weights(toy, tiny_encoder, tmp_path):
    trained(argv(toy, tmp_path / "whole", tiny_encoder))
    killed = tmp_path / "killed"
    # SIGKILL at step 10 of 18 (epoch 2 has steps 7-12): the checkpoints of steps 4, 6 (epoch 1's end) and 8 were
    # written; 8 is the one kept
    done = run_stopped(argv(toy, killed, tiny_encoder), 10, "kill")
    assert done.returncode == -signal.SIGKILL
    assert not killed.exists()
    assert sorted(p.name for p in (build_folder(killed) / "checkpoints").iterdir()) == [
        "best-epoch-1.safetensors", "step-00000008"]
    resumed = trained(argv(toy, killed, tiny_encoder)[:-1])  # not --quiet: it says where it goes on from
    assert "going on from the checkpoint at epoch 2 of 3, step 8" in resumed.stderr
    assert (killed / "model.safetensors").read_bytes() == (tmp_path / "whole" / "model.safetensors").read_bytes()
    whole, resumed = (json.loads((d / "train.json").read_text()) for d in (tmp_path / "whole", killed))
    assert resumed["resumed"] == [{"epoch": 2, "step": 8}] and "resumed" not in whole
    for key in ("dev_accuracy", "dev_classes", "best_epoch", "loss_curve", "steps", "counts"):
        assert resumed[key] == whole[key], key
    assert whole["steps"] == 18
    assert sorted(p.name for p in killed.iterdir()) == sorted(p.name for p in (tmp_path / "whole").iterdir())
    assert not build_folder(killed).exists()  # no checkpoint leftovers, no build folder


def test_ctrl_c_keeps_the_checkpoints_and_the_next_run_goes_on_from_them(toy, tiny_encoder, tmp_path):
    done = run_stopped(argv(toy, tmp_path / "m", tiny_encoder), 13, "ctrl-c")  # step 13: epoch 3's first
    assert (done.returncode, done.stderr) == (130, "entailgen: interrupted\n")
    state = json.loads((build_folder(tmp_path / "m") / "checkpoints" / "step-00000012" / "trainer_state.json")
                       .read_text())
    assert (state["run"]["epoch"], state["run"]["rounds"], len(state["run"]["dev_curve"])) == (2, 0, 2)
    trained(argv(toy, tmp_path / "m", tiny_encoder, "--resume"))
    trained(argv(toy, tmp_path / "whole", tiny_encoder))
    assert (tmp_path / "m" / "model.safetensors").read_bytes() == \
        (tmp_path / "whole" / "model.safetensors").read_bytes()


def interrupted(toy, encoder, output: Path) -> dict:
    """A model at output (what a user keeps), then a --overwrite run of it Ctrl-C'd at step 10; returns every file's
    bytes under output's parent."""
    assert main(argv(toy, output, encoder, "--epochs", "1")) == 0
    assert run_stopped(argv(toy, output, encoder, "--overwrite"), 10, "ctrl-c").returncode == 130
    return files_under(output.parent)


def files_under(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_resume_of_another_recipe_or_of_nothing_is_refused_in_one_line(toy, tiny_encoder, tmp_path, capsys):
    output = tmp_path / "out" / "m"
    before = interrupted(toy, tiny_encoder, output)
    capsys.readouterr()
    assert main(argv(toy, output, tiny_encoder, "--overwrite", "--lr", "1e-3", "--epochs", "2", "--resume")) == 2
    assert capsys.readouterr().err == (f"entailgen: error: --resume: the interrupted build of {output} trained another "
                                       "recipe (epochs, lr differ); leave out --resume to start over\n")
    assert files_under(output.parent) == before
    assert main(argv(toy, tmp_path / "new", tiny_encoder, "--resume")) == 2
    assert capsys.readouterr().err == f"entailgen: error: --resume: no interrupted training of {tmp_path / 'new'} " \
                                      "to resume\n"
    # one option changed, without --resume: it starts over, naming the option and what it discards
    assert main(argv(toy, output, tiny_encoder, "--overwrite", "--epochs", "1")) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"entailgen: the interrupted build of {output} trained another recipe (epochs differs); starting over, "
        "discarding its checkpoint at step 8")


def test_a_build_killed_before_its_first_checkpoint_starts_over_and_resume_refuses_it(toy, tiny_encoder, tmp_path,
                                                                                    capsys):
    output = tmp_path / "m"
    one_epoch = ["--epochs", "1"]  # 6 steps; the first checkpoint would be at step 4
    assert run_stopped(argv(toy, output, tiny_encoder, *one_epoch), 3, "kill").returncode == -signal.SIGKILL
    assert build_folder(output).is_dir() and not list(build_folder(output).glob("checkpoints/step-*"))
    assert main(argv(toy, output, tiny_encoder, *one_epoch, "--resume")) == 2
    assert capsys.readouterr().err == (
        f"entailgen: error: --resume: the interrupted build of {output} holds no complete checkpoint to go on from; "
        "leave out --resume to start over\n")
    assert main(argv(toy, output, tiny_encoder, *one_epoch)) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"entailgen: the interrupted build of {output} holds no complete checkpoint; starting over")
    assert "resumed" not in json.loads((output / "train.json").read_text())


def test_a_damaged_checkpoint_is_refused_in_one_line_and_nothing_is_deleted(toy, tiny_encoder, tmp_path, capsys):
    output = tmp_path / "out" / "m"
    interrupted(toy, tiny_encoder, output)
    checkpoint = build_folder(output) / "checkpoints" / "step-00000008"
    optimizer = checkpoint / "optimizer.bin"
    damaged = bytearray(optimizer.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    optimizer.write_bytes(bytes(damaged))
    before = files_under(output.parent)
    capsys.readouterr()
    for resume in ([], ["--resume"]):
        assert main(argv(toy, output, tiny_encoder, "--overwrite", *resume)) == 2
        assert capsys.readouterr().err == (
            f"entailgen: error: the checkpoint {checkpoint} is damaged (optimizer.bin differs from its sha256); "
            f"move {build_folder(output)} away to train from the start\n")
        assert files_under(output.parent) == before  # the old model and the build folder, byte for byte
    assert main(argv(toy, output, tiny_encoder, "--overwrite", "--no-resume")) == 0  # starts over, as asked
    assert capsys.readouterr().err.splitlines()[0] == (
        f"entailgen: --no-resume: starting over; the interrupted build of {output} is discarded with its checkpoint "
        "at step 8 (damaged)")
    assert not build_folder(output).exists()


def test_gradient_accumulation_trains_what_the_whole_batch_trains(toy, still_encoder, tmp_path):
    # stream order (--bucket-batches 1), no dropout: two batches of 4 accumulated are the batch of 8 they make up
    common = ["--bucket-batches", "1"]
    assert main(argv(toy, tmp_path / "whole", still_encoder, *common)) == 0
    assert main(argv(toy, tmp_path / "accum", still_encoder, *common, "--batch-size", "4", "--grad-accum", "2")) == 0
    whole, accum = (json.loads((tmp_path / d / "train.json").read_text()) for d in ("whole", "accum"))
    assert accum["steps"] == whole["steps"] == 18
    assert accum["loss_curve"] == pytest.approx(whole["loss_curve"], abs=2e-4)  # a step's loss: its batches' mean
    assert accum["dev_accuracy"] == whole["dev_accuracy"]
    a, b = weights(tmp_path / "whole"), weights(tmp_path / "accum")
    assert sorted(a) == sorted(b)
    for name in a:
        assert torch.allclose(a[name], b[name], rtol=1e-4, atol=1e-5), name


def test_two_cpu_processes_train_what_one_process_trains_with_their_batches_together(toy, still_encoder, tmp_path,
                                                                                   capsys):
    common = ["--bucket-batches", "1"]
    assert main(argv(toy, tmp_path / "one", still_encoder, *common)) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "entailgen.runners.cli",
                           *argv(toy, tmp_path / "two", still_encoder, *common, "--batch-size", "4"),
                           "--processes", "2"], env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{tmp_path / 'two'}\n", "")
    one, two = (json.loads((tmp_path / d / "train.json").read_text()) for d in ("one", "two"))
    assert (two["processes"], two["steps"], two["counts"]) == (2, 18, one["counts"])
    assert two["loss_curve"] == pytest.approx(one["loss_curve"], abs=2e-4)  # the processes' mean loss
    assert two["dev_accuracy"] == one["dev_accuracy"]
    a, b = weights(tmp_path / "one"), weights(tmp_path / "two")
    for name in a:
        assert torch.allclose(a[name], b[name], rtol=1e-4, atol=1e-5), name
    assert not build_folder(tmp_path / "two").exists()


# every process of a launch runs this first (sitecustomize): at a step, the process of a rank is killed, or touches a
# file and waits there to be killed
STOP_HOOK = """import os
if os.environ.get("STOP_AT"):
    import signal, time
    import entailgen.training.fitting.trainer as t
    step, rank, what = os.environ["STOP_AT"].split(":", 2)
    check = t.stop_if_not_finite
    def stopping(loss, at, epoch):
        if at == int(step) and os.environ.get("RANK") == rank:
            if what == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            open(what, "w").close()
            time.sleep(300)
        check(loss, at, epoch)
    t.stop_if_not_finite = stopping
"""


def children_of(pid: int) -> list[int]:
    """The processes a process started (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append(int(stat.parent.name))
        except (OSError, IndexError):
            pass
    return found


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_processes_of_a_launch_refuse_once_die_with_their_launcher_and_a_killed_one_is_said(toy, tiny_encoder,
                                                                                           tmp_path):
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(STOP_HOOK)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'hook'}{os.pathsep}{ROOT}", "OMP_NUM_THREADS": "1"}
    output, cli = tmp_path / "m", [sys.executable, "-m", "entailgen.runners.cli"]
    # torchrun: a refusal both processes meet is entailgen's one line, once (torchrun adds its own report)
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", *cli[1:],
                           *argv(toy, output, tiny_encoder, "--mixed-precision", "bf16", "--device", "cpu")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.stderr.count("entailgen: error:") == 1 and "UsageError" not in done.stderr, done.stderr
    assert "entailgen: error: --mixed-precision bf16 is for GPUs; on the CPU training runs in fp32\n" in done.stderr
    # the launcher of --processes 2 killed at step 5 of 9 (a checkpoint at step 4): its processes die with it
    reached, log = tmp_path / "reached", tmp_path / "launcher.log"
    with open(log, "w") as err:
        launcher = subprocess.Popen([*cli, *argv(toy, output, tiny_encoder, "--processes", "2")], stderr=err,
                                    env={**env, "STOP_AT": f"5:0:{reached}"})
    workers: list[int] = []
    try:
        while not reached.exists():
            assert launcher.poll() is None, log.read_text()
            time.sleep(0.2)
        workers = children_of(launcher.pid)
        assert len(workers) == 2
        launcher.kill()
        launcher.wait()
        deadline = time.monotonic() + 20
        while any(running(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if running(p)]
    finally:
        for pid in [launcher.pid, *workers]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
    assert not output.exists()
    # the same command goes on from that checkpoint; process 1 killed at step 8 is said in one line
    done = subprocess.run([*cli, *argv(toy, output, tiny_encoder, "--processes", "2")], env={**env, "STOP_AT": "8:1:kill"},
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stderr.splitlines()) == (1, [
        f"entailgen: resuming the interrupted build of {output} (what it finished is kept)",
        "entailgen: error: process 1 of 2 was killed by SIGKILL (the out-of-memory killer sends it when memory runs "
        "out); the same command goes on from its last checkpoint"])
    assert not output.exists() and list(build_folder(output).glob("checkpoints/step-*"))


def test_mixed_precision_is_for_gpus_and_the_new_numbers_are_checked(toy, tiny_encoder, tmp_path, capsys):
    for flags, said in ((["--mixed-precision", "bf16", "--device", "cpu"],
                         "--mixed-precision bf16 is for GPUs; on the CPU training runs in fp32"),
                        (["--grad-accum", "0"], "--grad-accum must be at least 1, got 0"),
                        (["--checkpoint-every", "0"], "--checkpoint-every must be at least 1, got 0"),
                        (["--processes", "0"], "--processes must be at least 1, got 0")):
        assert main(argv(toy, tmp_path / "m", tiny_encoder, *flags)) == 2
        assert capsys.readouterr().err == f"entailgen: error: {said}\n"
    assert not (tmp_path / "m").exists()
