"""SummaC's math (Laban et al. 2022 §3): ZS (each summary sentence's best block, averaged), the Conv head (each
sentence's histogram of block scores in 50 bins over [0, 1] -> one linear score per sentence -> their mean -> an affine
map to P(consistent)), and the join of several models' scores by the mean of their log-odds. Plain torch."""
from __future__ import annotations

import json
import math
import os
import random
from typing import Optional, Sequence

from entailgen.training.fitting.checkpoint import CHECKSUMS, file_sha256
from entailgen.training.fitting.model_dir import ModelDir


ZS, CONV = "zs", "conv"


AGGREGATIONS = (ZS, CONV)


BINS = 50


EPSILON = 1e-6  # scores are rounded to 6 places: 0.0 and 1.0 are read as 1e-6 and 1 - 1e-6


CONV_CONFIG = "conv.json"


CONV_WEIGHTS = "conv.safetensors"


def zs_score(matrix: Sequence[Sequence[float]]) -> float:
    """SummaC-ZS: each summary sentence (a column) is as consistent as its best block; the summary is their mean."""
    columns = list(zip(*matrix))
    return sum(max(column) for column in columns) / len(columns)


def ensemble_score(scores: Sequence[float]) -> float:
    """Several models' scores of one row as one: the mean of their log-odds (a product of experts), so a model sure of
    an error outweighs one that is unsure, and models whose scores live on different scales still each count."""
    logits = [math.log(max(p, EPSILON) / max(1.0 - p, EPSILON)) for p in scores]
    return 1.0 / (1.0 + math.exp(-sum(logits) / len(logits)))


def column_histogram(column: Sequence[float], bins: int = BINS) -> list[float]:
    """Counts of a sentence's block scores in `bins` equal bins over [0, 1] (the last bin includes 1.0), as SummaC."""
    counts = [0.0] * bins
    for score in column:
        counts[min(int(score * bins), bins - 1)] += 1.0
    return counts


def histograms(matrix: Sequence[Sequence[float]], bins: int = BINS) -> list[list[float]]:
    """One histogram per summary sentence: what the Conv head reads."""
    return [column_histogram(column, bins) for column in zip(*matrix)]


def conv_head(bins: int = BINS):
    """The SummaC-Conv head: a linear score per sentence histogram (the paper's 1-D convolution of width `bins`), the
    mean over sentences, an affine map to one logit of 'consistent'."""
    import torch
    from torch import nn

    class ConvHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.sentence = nn.Linear(bins, 1)
            self.final = nn.Linear(1, 1)

        def forward(self, histograms, mask):
            """Logits [documents] of histograms [documents, sentences, bins] with mask [documents, sentences]."""
            per_sentence = self.sentence(histograms).squeeze(-1) * mask
            mean = per_sentence.sum(-1) / mask.sum(-1).clamp(min=1)
            return self.final(mean.unsqueeze(-1)).squeeze(-1)

    torch.manual_seed(0)
    return ConvHead()


def _padded(matrices: Sequence[Sequence[Sequence[float]]], bins: int):
    """Histograms and sentence masks of several matrices as padded tensors."""
    import torch

    hists = [histograms(m, bins) for m in matrices]
    most = max(len(h) for h in hists)
    tensor = torch.zeros(len(hists), most, bins)
    mask = torch.zeros(len(hists), most)
    for i, h in enumerate(hists):
        tensor[i, :len(h)] = torch.tensor(h)
        mask[i, :len(h)] = 1.0
    return tensor, mask


def train_conv(matrices: Sequence, labels: Sequence[int], *, seed: int = 0, epochs: int = 20, lr: float = 0.1,
               batch_size: int = 32, bins: int = BINS):
    """A Conv head fitted to (block x sentence matrix, label 1 consistent / 0 not) rows: Adam, lr 0.1, batch 32 as in
    SummaC's train_summac.py, cross-entropy on the one logit, rows shuffled with the seed."""
    import torch

    if len(set(labels)) < 2:
        raise ValueError("training a Conv head needs rows of both labels (consistent and inconsistent)")
    torch.manual_seed(seed)
    head = conv_head(bins)
    optimizer = torch.optim.Adam(head.parameters(), lr=lr)
    order = list(range(len(matrices)))
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            tensor, mask = _padded([matrices[i] for i in chunk], bins)
            target = torch.tensor([float(labels[i]) for i in chunk])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(head(tensor, mask), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return head.eval()


def conv_scores(head, matrices: Sequence, bins: int = BINS) -> list[float]:
    """P(consistent) of each matrix under a Conv head."""
    import torch

    if not matrices:
        return []
    with torch.no_grad():
        tensor, mask = _padded(matrices, bins)
        return [round(float(p), 6) for p in torch.sigmoid(head(tensor, mask))]


def save_conv(directory: str, head, meta: dict) -> None:
    """Weights (safetensors) and conv.json: the bins, the granularity and the scoring model's checksums it was fit on."""
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    save_file({k: v.contiguous() for k, v in head.state_dict().items()}, os.path.join(directory, CONV_WEIGHTS))
    with open(os.path.join(directory, CONV_CONFIG), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True, allow_nan=False)


def load_conv(directory: str, model_dir: Optional[str] = None):
    """(head, meta) of a conv dir; ValueError (one line) when it is not one, or was fit on another scoring model."""
    from safetensors.torch import load_file

    try:
        with open(os.path.join(directory, CONV_CONFIG), encoding="utf-8") as f:
            meta = json.load(f)
        head = conv_head(int(meta["bins"]))
        head.load_state_dict(load_file(os.path.join(directory, CONV_WEIGHTS)))
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ValueError(f"{directory} is not a Conv head `entailgen train-conv` wrote ({str(e).splitlines()[0]})")
    if model_dir is not None and meta.get("model_checksums") != model_checksums(model_dir):
        raise ValueError(f"{directory} was fit on the scores of another model than {model_dir}; train it again with "
                         f"`entailgen train-conv {model_dir} ...`")
    return head.eval(), meta


def model_checksums(model_dir) -> str:
    """The sha256 of a model dir's checksums.json: which model a Conv head's histograms came from (a ModelDir's, as
    its opening hashed it)."""
    if isinstance(model_dir, ModelDir):
        return model_dir.checksums
    path = os.path.join(model_dir, CHECKSUMS)
    return file_sha256(path) if os.path.isfile(path) else ""
