"""Training on Hugging Face Accelerate: one process, or several (DDP: `accelerate launch`, torchrun, `entailgen train
--processes N`), each training its share of every round of batches; mixed precision on GPUs is Accelerate's."""
from __future__ import annotations

import os
from typing import Iterable, Iterator

MIXED_PRECISIONS = ("auto", "no", "bf16", "fp16")  # auto: bf16 on a GPU (what training did before), none on the CPU


def launched() -> bool:
    """Whether this process is one of several a launcher started (torchrun and `accelerate launch` set WORLD_SIZE)."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def mixed_precision_for(requested: str, cpu: bool) -> str:
    """Accelerate's mixed_precision for --mixed-precision on this device: auto is bf16 on a GPU, 'no' on the CPU; the
    CPU trains in fp32 (deterministic, byte-identical runs), so bf16 / fp16 there are refused."""
    if requested not in MIXED_PRECISIONS:
        raise ValueError(f"--mixed-precision takes {', '.join(MIXED_PRECISIONS)}, got {requested!r}")
    if cpu and requested in ("bf16", "fp16"):
        raise ValueError(f"--mixed-precision {requested} is for GPUs; on the CPU training runs in fp32")
    return "no" if cpu or requested == "no" else "bf16" if requested == "auto" else requested


def accelerator_for(device_name: str, mixed_precision: str, grad_accum: int):
    """The Accelerator a run trains with: the device --device names (all processes of a launch on the same kind),
    Accelerate's autocast for --mixed-precision, its loss division for --grad-accum."""
    from accelerate import Accelerator, DistributedDataParallelKwargs
    from accelerate.state import AcceleratorState

    from entailgen.training.fitting.models import pick_device

    device = pick_device(device_name)  # one line for a missing GPU or an unknown device
    cpu = device.type == "cpu"
    precision = mixed_precision_for(mixed_precision, cpu)
    if not launched():
        AcceleratorState._reset_state(reset_partial_state=True)  # one process: each run its own precision, steps
        if device.index is not None:
            import torch

            torch.cuda.set_device(device)  # --device cuda:N: Accelerate trains on the current device
    # an encoder's pooler (BERT's) is in no head's loss: DDP must not wait for its gradients
    unused = DistributedDataParallelKwargs(find_unused_parameters=True)
    return Accelerator(cpu=cpu, mixed_precision=precision, gradient_accumulation_steps=grad_accum,
                       kwargs_handlers=[unused])


def updates_per_epoch(rows: int, batch_size: int, processes: int, grad_accum: int) -> int:
    """Optimizer steps an epoch takes at most: its batches shared in rounds over the processes, a step every
    grad_accum rounds and at the epoch's end (the linear schedule's length; one process, no accumulation: batches)."""
    rounds = -(-(-(-rows // batch_size)) // processes)
    return -(-rounds // grad_accum)


def shares(batches: Iterable[list], processes: int, rank: int) -> Iterator[tuple[list, int, bool]]:
    """(this process's batch, examples the round trains, whether it is the epoch's last round) for each round of
    `processes` consecutive batches; in a last round short of batches a process without one trains the round's first
    again (as Accelerate's even_batches repeats examples), so every process takes the same number of steps."""
    pending, rounds = [], in_groups(batches, processes)
    for current in rounds:
        pending.append(current)
        if len(pending) == 2:
            yield _share(pending.pop(0), rank, False)
    if pending:
        yield _share(pending[0], rank, True)


def in_groups(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive groups of at most size: a stream's batches, and a round's batches (one per process)."""
    group: list = []
    for item in items:
        group.append(item)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def _share(round_: list[list], rank: int, last: bool) -> tuple[list, int, bool]:
    return round_[rank] if rank < len(round_) else round_[0], sum(len(b) for b in round_), last
