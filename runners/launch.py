"""`entailgen train`'s flags for long runs (checkpoints, --resume, --grad-accum, --mixed-precision) and
`--processes N`: the same command in N processes on this machine (DDP over Accelerate: gloo on CPUs, NCCL on GPUs),
as `accelerate launch -m entailgen.runners.cli train ...` or torchrun start them."""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Sequence

MODULE = "entailgen.runners.cli"


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


def relaunch(argv: Sequence[str], processes: int) -> int:
    """Run the command in `processes` processes as torchrun would (RANK, WORLD_SIZE, LOCAL_RANK, a free rendezvous
    port) and return the first process's exit status; the first process speaks, the others' stderr is shown only when
    one of them fails alone; if one fails, the others are stopped (they would wait for it)."""
    port = free_port()
    threads = str(max(1, (os.cpu_count() or 1) // processes))
    command = [sys.executable, "-m", MODULE, *without_processes(argv)]
    children, logs = [], []
    for rank in range(processes):
        env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(processes),
               "LOCAL_WORLD_SIZE": str(processes), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
        env.setdefault("OMP_NUM_THREADS", threads)  # the cores shared, not each process taking them all
        log = tempfile.TemporaryFile() if rank else None
        logs.append(log)
        children.append(subprocess.Popen(command, env=env, stderr=log))
    try:
        codes = _wait(children)
    except KeyboardInterrupt:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGINT)
        _wait(children, patience=30.0)
        raise
    own = [rank for rank, code in enumerate(codes) if code > 0]  # failed of themselves (not killed: negative)
    for rank in own:
        if rank and codes[0] <= 0:  # the first process said nothing of it: this one's own words
            logs[rank].seek(0)
            sys.stderr.write(logs[rank].read().decode("utf-8", "replace"))
    for log in logs[1:]:
        log.close()
    return codes[own[0]] if own else 1 if any(codes) else 0


def _wait(children: list, patience: float = float("inf")) -> list[int]:
    """Each child's exit status; once one fails, or after `patience` seconds, the ones still running are killed (a
    process waiting for a dead one in a collective never returns)."""
    deadline = time.monotonic() + patience
    while any(c.poll() is None for c in children):
        if any(c.returncode for c in children if c.returncode is not None) or time.monotonic() > deadline:
            for c in children:
                if c.poll() is None:
                    c.kill()
        time.sleep(0.05)
    return [c.returncode for c in children]
