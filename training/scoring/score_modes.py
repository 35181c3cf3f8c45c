"""How a model's class probabilities become a score (With a Little Push, Steen et al. 2023 §2.2-2.3): `e`, P(entailed),
or `e-c`, P(entailed) - P(contradicted), which needs a 3-way model; and Monte Carlo dropout, N forward passes with the
dropout modules on, averaged. No torch at import: the CLI checks a mode before any model loads."""
from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass
from typing import Optional, Sequence

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import THREE_WAY

E, E_C = "e", "e-c"
SCORES = (E, E_C)
ENTAILMENT, CONTRADICTION = THREE_WAY[0], THREE_WAY[2]
MAX_MC_DROPOUT = 100  # passes: a bound a user can wait for (a billion never finished); runners.model_options says it


@dataclass(frozen=True)
class ScoreMode:
    """The seed's inference: which score (e, e-c) and how many MC dropout passes (0: one plain eval pass), seeded."""

    score: str = E
    mc_dropout: int = 0
    seed: int = 0

    def __post_init__(self):
        if self.score not in SCORES:
            raise ValueError(f"--score takes {' or '.join(SCORES)}, got {self.score!r}")
        if (isinstance(self.mc_dropout, bool) or not isinstance(self.mc_dropout, int)
                or not 0 <= self.mc_dropout <= MAX_MC_DROPOUT):
            raise ValueError(f"--mc-dropout takes a number of passes from 0 to {MAX_MC_DROPOUT} (each pass is a whole "
                             f"forward pass of every pair), got {self.mc_dropout!r}")

    @property
    def plain(self) -> bool:
        """The default mode: P(entailed) from one eval pass, as every score before the seed's inference."""
        return self.score == E and not self.mc_dropout

    def check_model(self, task: str, labels: Optional[Sequence[str]], model_dir: str) -> None:
        """ValueError (one line) for e-c on a model without a contradiction class (a DAE arc model, a 2-way one)."""
        if self.score == E_C and (task != "pair" or CONTRADICTION not in (labels or ())):
            has = "a dae arc model" if task != "pair" else f"a pair model with labels {', '.join(labels or ())}"
            raise ValueError(f"--score e-c needs a 3-way pair model ({', '.join(THREE_WAY)}); {model_dir} is {has}")

    def suffix(self) -> str:
        """What the mode adds to a score cache's and an evaluation file's name ('' for the plain mode): no mode reads,
        or overwrites, another's scores."""
        return "" if self.plain else f"-{self.score}-mc{self.mc_dropout}-seed{self.seed}"

    def config(self) -> dict:
        """The mode as the evaluation json, the card and a score job's manifest record it."""
        return asdict(self)

    def describe(self) -> str:
        """'e-c, MC dropout 8 passes (seed 0)': the mode in words, for tables and cards."""
        return self.score + (f", MC dropout {self.mc_dropout} passes (seed {self.seed})" if self.mc_dropout else "")


def score_of(probs, entailed: int, contradicted: Optional[int], mode: ScoreMode) -> float:
    """One pair's score from its class probabilities: P(entailed), or for e-c (1 + P(e) - P(c)) / 2, the paper's
    difference on [0, 1] (the same order, so the same ROC AUC and SummaC-ZS choices; an unscorable row's 0.0 stays
    the lowest score and a Conv histogram's bins stay [0, 1])."""
    if mode.score == E:
        return float(probs[entailed])
    return (1.0 + float(probs[entailed]) - float(probs[contradicted])) / 2


@contextlib.contextmanager
def dropout_on(model):
    """The model's dropout modules in train mode (every other module stays in eval: no batch statistics change), put
    back in eval mode after."""
    from torch import nn

    dropouts = [m for m in model.modules() if isinstance(m, nn.modules.dropout._DropoutNd)]
    for m in dropouts:
        m.train()
    try:
        yield
    finally:
        for m in dropouts:
            m.eval()


def mode_probabilities(model, batch: list, pad_id: int, device, mode: ScoreMode, draw: int = 0):
    """Class probabilities of a batch of Features: one eval pass, or the mean of mode.mc_dropout passes with dropout
    on, their masks drawn from torch's generators forked and seeded with (the mode's seed, draw: the batch's place in
    its call), so the same pairs in the same call give the same scores and the caller's random state is untouched."""
    import torch

    from entailgen.training.scoring.evaluation import probabilities

    if not mode.mc_dropout:
        return probabilities(model, batch, pad_id, device)
    with torch.random.fork_rng(devices=[device] if torch.device(device).type == "cuda" else []), dropout_on(model):
        torch.manual_seed(seeded_rng(mode.seed, "mc-dropout", str(draw)).getrandbits(32))  # mt19937 reads 32 bits
        return sum(probabilities(model, batch, pad_id, device) for _ in range(mode.mc_dropout)) / mode.mc_dropout
