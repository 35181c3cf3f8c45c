"""`entailgen train-conv`: a SummaC-Conv head fit on a model's block scores of a claims dataset's document rows."""
from __future__ import annotations

from typing import Optional, Sequence

from entailgen.dataset.output import CONV_HEAD, check_output
from entailgen.dataset.publish import publish
from entailgen.schemas.records import ENTAILED, ClaimExample
from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.fitting.data import DatasetError, open_dataset, records
from entailgen.training.fitting.models import pick_device
from entailgen.training.scoring.precision import AUTO, resolved_precision
from entailgen.training.scoring.scorers import PairScores, Unscorable, model_pair_scores
from entailgen.training.scoring.summac import BINS, conv_scores, model_checksums, save_conv, train_conv


def claim_rows(dataset: str, split: str, limit: Optional[int]) -> list[tuple[list[str], str, int]]:
    """(blocks, claim, 1 consistent / 0 not) of a claims dataset's document rows (block rows left out), the first
    `limit` of the split (rows are in content-hash order: a uniform sample)."""
    manifest, _ = open_dataset(dataset)
    if manifest.get("record_type") != ClaimExample.__name__:
        raise DatasetError(f"{dataset} holds {manifest.get('record_type')} rows; a Conv head learns from a claims "
                           f"dataset's (document blocks, claim, label) rows")
    rows = []
    for record in records(dataset, split) if split in manifest.get("splits", {}) else ():
        if record.block_index is None and record.blocks:
            rows.append((list(record.blocks), record.claim, int(record.entailment == ENTAILED)))
            if limit is not None and len(rows) == limit:
                break
    return rows


def claim_matrices(pair_scores: PairScores, rows, batch_rows: int = 64, progress=None) -> list:
    """The blocks x 1 matrix of each claim row (the claim is one summary sentence: no parsing needed), scored in
    batches of rows; progress(done, total) after each."""
    out: list = []
    for start in range(0, len(rows), batch_rows):
        chunk = rows[start:start + batch_rows]
        cells = list(dict.fromkeys((b, claim) for blocks, claim, _ in chunk for b in blocks))
        scored = dict(zip(cells, pair_scores(cells)))
        for blocks, claim, _ in chunk:
            column = [scored[b, claim] for b in blocks]
            out.append(None if any(isinstance(c, Unscorable) for c in column) else [[c] for c in column])
        if progress is not None:
            progress(min(start + batch_rows, len(rows)), len(rows))
    return out


def balanced_accuracy_at(scores: Sequence[float], labels: Sequence[int], threshold: float = 0.5) -> Optional[float]:
    """The benchmark's balanced accuracy (percent) of the scores at a threshold; None without both labels."""
    if len(set(labels)) < 2:
        return None
    from sklearn.metrics import balanced_accuracy_score

    return round(100 * float(balanced_accuracy_score(labels, [int(s > threshold) for s in scores])), 2)


def fit_conv(model_dir: str, dataset: str, output: str, *, max_rows: Optional[int] = 2000, seed: int = 0,
             device: str = "cpu", overwrite: bool = False, progress=None) -> dict:
    """Train a SummaC-Conv head on a model's block scores of a claims dataset's train rows (dev rows: balanced
    accuracy at 0.5), written build-then-swap into output; returns conv.json."""
    model_dir = ModelDir.open(model_dir)  # once: the scores, the head's record of which model
    check_output(output, CONV_HEAD, overwrite=overwrite)  # before any block is scored
    rows = {split: claim_rows(dataset, split, max_rows) for split in ("train", "dev")}
    if not rows["train"]:
        raise ValueError(f"{dataset} has no document row in its train split to fit a Conv head on")
    if len({label for _, _, label in rows["train"]}) < 2:  # said now, not after every block is scored
        n = len(rows["train"])
        read = f"the first {n} (--max-rows)" if n == max_rows else f"all {n}"
        raise ValueError(f"{read} document rows of {dataset}'s train split have one label; a Conv head learns from "
                         "consistent and inconsistent rows")
    if len({label for _, _, label in rows["dev"]}) < 2:  # else the dev figure would say None, and exit 0
        raise ValueError(f"{dataset} has {len(rows['dev'])} document rows in its dev split, not rows of both labels "
                         "to measure a Conv head on; build the claims dataset with a dev split (run claims "
                         "--splits train=0.8,dev=0.1,test=0.1)")
    precision = resolved_precision(AUTO, pick_device(device))  # recorded: the head reads scores of one precision
    scores = model_pair_scores(model_dir, device, precision=precision)
    fitted = {split: [(m, y) for m, (_, _, y) in zip(claim_matrices(scores, r, progress=progress), r) if m is not None]
              for split, r in rows.items()}
    head = train_conv([m for m, _ in fitted["train"]], [y for _, y in fitted["train"]], seed=seed)
    dev = fitted["dev"]
    meta = {"bins": BINS, "granularity": _granularity(dataset), "model": str(model_dir),
            "model_checksums": model_checksums(model_dir), "dataset": dataset, "seed": seed, "precision": precision,
            "rows": {split: len(r) for split, r in fitted.items()},
            "dev_balanced_accuracy": balanced_accuracy_at(conv_scores(head, [m for m, _ in dev]), [y for _, y in dev])}
    with publish(output, CONV_HEAD, overwrite=overwrite) as building:
        save_conv(building, head, meta)
    return meta


def _granularity(dataset: str) -> str:
    """The block granularity a claims dataset was made with (its manifest's config)."""
    return str(open_dataset(dataset)[0].get("config", {}).get("family", {}).get("granularity", "sentence"))
