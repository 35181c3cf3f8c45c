"""The options of a training run (`entailgen train`'s flags, the API's TrainOptions), checked in one line each."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from entailgen.training.fitting.data import check_mix
from entailgen.training.fitting.encoder import DEFAULT_ENCODER
from entailgen.training.fitting.models import DAE, PAIR
from entailgen.training.fitting.processes import MIXED_PRECISIONS
from entailgen.transforms.views import CLAIM_VIEWS, DEFAULT_CLAIM_VIEW


@dataclass(frozen=True)
class TrainOptions:
    """Defaults from the DAE authors' code: AdamW lr 2e-5, batch 32, 3 epochs, clip 1.0, 128 tokens, 20 arcs; lr None
    is auto: their 2e-5 for BERT-size encoders, 1e-4 for smaller ones (auto_lr)."""

    encoder: str = DEFAULT_ENCODER
    epochs: int = 3
    batch_size: int = 32
    lr: Optional[float] = None  # None: auto_lr(encoder), resolved once the encoder is loaded
    max_length: int = 128
    max_arcs: int = 20
    grad_clip: float = 1.0
    seed: int = 0
    device: str = "auto"  # auto: cuda (bf16 autocast) when present, else cpu
    train_split: str = "train"
    dev_split: str = "dev"
    shuffle_buffer: int = 10000
    max_examples: Optional[int] = None  # read at most this many training rows (sub-sampling for benchmarks)
    progress: bool = True
    task: Optional[str] = None  # None: dae for arc datasets only, else pair; "pair" trains dae rows at sentence level
    mix: tuple[float, ...] = ()  # a weight per dataset: its share of the rows each epoch draws; (): by its rows
    claims_view: str = DEFAULT_CLAIM_VIEW  # claims rows as pairs: transforms.views
    bucket_batches: int = 50  # batches pooled, sorted by length, cut and shuffled (bucketed); 1: stream order
    three_way: bool = False  # the pair model 3-way where only some rows keep a 3-way label: the others left out
    grad_accum: int = 1  # batches whose gradients make one optimizer step (a batch of batch_size * grad_accum)
    mixed_precision: str = "auto"  # Accelerate's autocast: auto is bf16 on a GPU, none (fp32) on the CPU
    checkpoint_every: int = 500  # optimizer steps between checkpoints (and one at each epoch's end): what a kill loses

    def check(self) -> None:
        """Refuse meaningless values with one line."""
        for name in ("epochs", "batch_size", "max_length", "max_arcs", "shuffle_buffer", "bucket_batches",
                     "grad_accum", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.max_examples is not None and self.max_examples < 1:
            raise ValueError(f"--max-examples must be at least 1, got {self.max_examples}")
        for name in ("lr", "grad_clip"):  # `not 0 < x < inf`: nan fails it too
            value = getattr(self, name)
            if name == "lr" and value is None:  # auto: chosen by encoder size
                continue
            if not 0 < value < math.inf:
                raise ValueError(f"--{name.replace('_', '-')} must be a positive finite number, got {value}")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"--device takes auto, cpu or cuda, got {self.device!r}")
        if self.task not in (None, DAE, PAIR):
            raise ValueError(f"--task takes {DAE} or {PAIR}, got {self.task!r}")
        if self.claims_view not in CLAIM_VIEWS:
            raise ValueError(f"--claims-view takes {', '.join(CLAIM_VIEWS)}, got {self.claims_view!r}")
        if self.mix:
            check_mix(self.mix, len(self.mix))
        if self.mixed_precision not in MIXED_PRECISIONS:
            raise ValueError(f"--mixed-precision takes {', '.join(MIXED_PRECISIONS)}, got {self.mixed_precision!r}")
