"""`entailgen train`'s flags for long runs (checkpoints, --resume, --grad-accum, --mixed-precision) and
`--processes N`: the same command in N processes on this machine (DDP over Accelerate: gloo on CPUs, NCCL on GPUs),
as `accelerate launch -m entailgen.runners.cli train ...` or torchrun start them."""
from __future__ import annotations

import argparse
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional, Sequence

MODULE = "entailgen.runners.cli"
LAUNCHER = "ENTAILGEN_LAUNCHER"  # in each process `--processes N` starts: the launcher's pid (it shows their words)
PR_SET_PDEATHSIG = 1  # Linux prctl: the signal a process gets when the one that started it dies
LINGER_S = 3.0  # how long a process other than the first of torchrun waits for the first to say a shared error
# what gloo (and the rendezvous store) say when the process at the other end of a collective is gone
PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "Broken pipe")


def add_training_flags(train) -> None:
    """The flags of a long training run, on `entailgen train`'s parser."""
    train.add_argument("--grad-accum", type=int, default=1, metavar="K",
                       help="batches whose gradients make one optimizer step (an effective batch of K x "
                            "--batch-size x processes)")
    train.add_argument("--mixed-precision", default="auto", choices=("auto", "no", "bf16", "fp16"),
                       help="Accelerate's autocast on GPUs: auto (default) is bf16 on a GPU, fp32 on the CPU")
    train.add_argument("--checkpoint-every", type=int, default=500, metavar="N",
                       help="optimizer steps between checkpoints in the build folder (also one at each epoch's "
                            "end); a killed run loses at most this many")
    train.add_argument("--resume", action=argparse.BooleanOptionalAction, default=None,
                       help="go on from the checkpoints of an interrupted run into the same --output; the default "
                            "does so when the interrupted run trained the same recipe and starts over otherwise; "
                            "--resume refuses to start over, --no-resume starts over")
    train.add_argument("--processes", type=int, default=1, metavar="N",
                       help="train in N processes on this machine (DDP: gloo on CPUs, one GPU each); "
                            "`accelerate launch -m entailgen.runners.cli train ...` does the same")


def without_processes(argv: Sequence[str]) -> list[str]:
    """The command line less --processes N (each process is one of N already)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--processes":
            skip = True
        elif not a.startswith("--processes="):
            out.append(a)
    return out


def free_port() -> int:
    """A TCP port on this machine free now, for the processes' rendezvous."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def relaunch(argv: Sequence[str], processes: int, output: str) -> int:
    """Run the command in `processes` processes as torchrun would (RANK, WORLD_SIZE, LOCAL_RANK, a free rendezvous
    port) and return the first process's exit status; the first process speaks, the others' stderr is shown only when
    one of them fails alone; if one fails, the others are stopped (they would wait for it); one killed (the
    out-of-memory killer) is said in one line; they die with the launcher."""
    port = free_port()
    threads = str(max(1, (os.cpu_count() or 1) // processes))
    command = [sys.executable, "-m", MODULE, *without_processes(argv)]
    children, logs = [], []
    for rank in range(processes):
        env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(processes),
               "LOCAL_WORLD_SIZE": str(processes), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               LAUNCHER: str(os.getpid())}
        env.setdefault("OMP_NUM_THREADS", threads)  # the cores shared, not each process taking them all
        log = tempfile.TemporaryFile() if rank else None
        logs.append(log)
        children.append(subprocess.Popen(command, env=env, stderr=log, preexec_fn=_dying_with(os.getpid())))
    try:
        codes, first = _wait(children)
    except KeyboardInterrupt:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGINT)
        _wait(children, patience=30.0)
        raise
    if first is not None and codes[first] < 0:  # killed from outside (the OOM killer): the others stopped for it
        sys.stderr.write(f"entailgen: error: {killed(first, processes, -codes[first], output)}\n")
        return 1
    own = [rank for rank, code in enumerate(codes) if code > 0]  # failed of themselves (not killed: negative)
    for rank in own:
        if rank and codes[0] <= 0:  # the first process said nothing of it: this one's own words
            logs[rank].seek(0)
            sys.stderr.write(logs[rank].read().decode("utf-8", "replace"))
    for log in logs[1:]:
        log.close()
    return codes[own[0]] if own else 1 if any(codes) else 0


def _wait(children: list, patience: float = float("inf")) -> tuple[list[int], Optional[int]]:
    """Each child's exit status, and which failed first (a death by a signal before an exit the death caused; None
    when none failed); once one fails, or after `patience` seconds, the ones still running are killed (a process
    waiting for a dead one in a collective never returns)."""
    deadline, first = time.monotonic() + patience, None
    while any(c.poll() is None for c in children):
        first = _first_failed(children) if first is None else first
        if first is not None or time.monotonic() > deadline:
            for c in children:
                if c.poll() is None:
                    c.kill()
        time.sleep(0.05)
    return [c.returncode for c in children], _first_failed(children) if first is None else first


def _first_failed(children: list) -> Optional[int]:
    """Of the children ended with a failure so far, the one that caused it: one a signal ended before one that
    exited (a process exits of itself when another one is gone); None when none failed."""
    failed = sorted((c.returncode >= 0, i) for i, c in enumerate(children) if c.returncode)
    return failed[0][1] if failed else None


def _dying_with(launcher: int) -> Callable[[], None]:
    """What each process runs before the command: Linux's parent-death signal, so a launcher killed (SIGKILL) takes
    its processes with it rather than leaving them to train and publish alone; the build folder stays to go on from."""
    prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None) if sys.platform.startswith("linux") else None

    def set_signal() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != launcher:  # the launcher died before the signal was set
            os._exit(1)

    return set_signal


def killed(rank: int, processes: int, signum: int, output: str) -> str:
    """One line for a process of the launch that a signal ended: which, how, and what the same command does next."""
    try:
        how = signal.Signals(signum).name
    except ValueError:
        how = f"signal {signum}"
    why = " (the out-of-memory killer sends it when memory runs out)" if signum == signal.SIGKILL else ""
    return f"process {rank} of {processes} was killed by {how}{why}; {again(output)}"


def again(output: str) -> str:
    """What the same command does after a launch was cut short: go on from the build folder's checkpoint, or start
    over when there is none."""
    from entailgen.dataset.output import PARTIAL, sibling
    from entailgen.training.fitting.resume import has_checkpoint

    return ("the same command goes on from its last checkpoint" if has_checkpoint(sibling(output, PARTIAL))
            else "no checkpoint was written yet: the same command starts over")


def speaks() -> bool:
    """Whether this process says its error line: one process, the first of a launch, or one that `--processes`
    started (the launcher shows another's words only when the first said nothing)."""
    return LAUNCHER in os.environ or int(os.environ.get("RANK", "0")) == 0


def say(line: str) -> None:
    """An error line said once in a launch: another process than the first of torchrun's or `accelerate launch`'s
    (which meet the same refusal) waits for its launcher to end it once the first has said it, and says it only if
    it is still running then (the first did not)."""
    if not speaks():
        time.sleep(LINGER_S)
    print(line, file=sys.stderr)


def peer_gone(e: BaseException) -> bool:
    """Whether an error is a collective's report that another process of the launch is gone (killed, or failed)."""
    return isinstance(e, RuntimeError) and any(text in str(e) for text in PEER_GONE)


def left_alone(e: BaseException, output: str) -> int:
    """A process whose collective found another process of the launch gone: under `--processes` it says nothing (the
    launcher says which process died and how); under torchrun or `accelerate launch`, whose report names it, a line."""
    if LAUNCHER not in os.environ and speaks():
        said = next(text for text in PEER_GONE if text in str(e))
        print(f"entailgen: error: another process of this launch is gone ({said}; the launcher's report says which); "
              f"{again(output)}", file=sys.stderr)
    return 1
