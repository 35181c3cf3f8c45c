"""What the trainer reads: a finished dataset through schemas.reader, its task, and record -> model features."""
from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from fractions import Fraction
from itertools import islice
from typing import Iterable, Iterator, Optional, Sequence

from entailgen.schemas.reader import IncompleteDataset, load_manifest, read_dataset
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, THREE_WAY
from entailgen.training.fitting.features import IGNORE, NO_LABEL, UNKNOWN_RELATION, arc_features, pair_features
from entailgen.training.fitting.models import DAE, PAIR

TASKS = {"ArcExample": DAE, "RtePair": PAIR, "ClaimExample": PAIR}  # claims: through transforms.views
TWO_WAY = (ENTAILED, NOT_ENTAILED)
NO_THREE_WAY = "no_3way_label"  # a pair a 3-way model (--three-way) cannot learn from: left out, counted


class DatasetError(ValueError):
    """A dataset the trainer cannot use: no manifest, a record type without a model, a missing split."""


def open_dataset(directory: str) -> tuple[dict, str]:
    """(manifest, task) of a finished dataset; refused with one line when it is incomplete or has no model."""
    try:
        manifest = load_manifest(directory)
    except IncompleteDataset as e:
        raise DatasetError(str(e))
    task = TASKS.get(manifest.get("record_type"))
    if task is None:
        raise DatasetError(f"{directory} holds {manifest.get('record_type')} records; the trainer takes "
                           f"{', '.join(TASKS)} (dae, recast, nli-dialogue, claims datasets)")
    return manifest, task


def records(directory: str, split: Optional[str]) -> Iterator:
    """The split's records streamed shard by shard ('all' or None: every split), each shard's sha256 checked against
    the manifest as it is read: the manifest's sha256 is what a model records as its data's provenance."""
    return read_dataset(directory, None if split in (None, "all") else split, as_records=True, verify=True)


def shuffled(items: Iterable, buffer: int, rng: random.Random) -> Iterator:
    """A seeded shuffle through a bounded buffer, so a dataset larger than memory streams."""
    pool: list = []
    for item in items:
        if len(pool) < buffer:
            pool.append(item)
            continue
        i = rng.randrange(buffer)
        yield pool[i]
        pool[i] = item
    rng.shuffle(pool)
    yield from pool


def vocabulary(directory: str | Sequence[str], task: str, split: str = "train") -> list[str]:
    """Relations seen in the split (dae; <unk> first) or label names (pair_labels)."""
    directories = [directory] if isinstance(directory, str) else list(directory)
    if task == DAE:
        return [UNKNOWN_RELATION] + sorted({a.rel for d in directories for r in records(d, split) for a in r.arcs})
    return pair_labels(directories, split)[0]


def pair_labels(directories: Sequence[str], split: str, three_way: bool = False) -> tuple[list[str], int, Counter]:
    """(the pair model's label names, the split's rows, those without a 3-way label by what made them): 3-way when
    every row of every dataset keeps a 3-way label (only recast / nli-dialogue rows can: dae and claims rows make 2-way
    pairs), or with three_way when some do (the others are left out, counted); else 2-way."""
    rows, lacking = 0, Counter()
    for d in directories:
        for r in records(d, split):
            rows += 1
            if getattr(r, "label3", None) not in THREE_WAY:
                lacking[getattr(r, "phenomenon", None) or type(r).__name__] += 1
    if three_way and sum(lacking.values()) == rows:
        raise DatasetError(f"--three-way: no row of the {split} split keeps a 3-way label (recast and nli-dialogue "
                           "rows can; dae and claims rows are 2-way)")
    return list(THREE_WAY) if rows and (three_way or not lacking) else list(TWO_WAY), rows, lacking


def label_index(record, labels: list[str]) -> int:
    """The record's label as an index into the model's label names."""
    name = record.label3 if len(labels) == 3 else record.label
    return labels.index(name) if name in labels else IGNORE


def featurizer(task: str, tokenizer, meta: dict, max_arcs: Optional[int]):
    """record -> its Features, or the reason it cannot be used (a 3-way model's pair without a 3-way label)."""
    if task == DAE:
        relations = {r: i for i, r in enumerate(meta["relations"])}
        return lambda record: arc_features(tokenizer, record, relations, meta["max_length"], max_arcs)
    labels = meta["labels"]
    return lambda record: (NO_THREE_WAY if len(labels) == 3 and getattr(record, "label3", None) not in labels else
                           pair_features(tokenizer, record.premise, record.hypothesis, label_index(record, labels),
                                         meta["max_length"]))


def usable(task: str, features, counts: Counter):
    """Features worth a training step, counting every example left out and why (never dropped silently)."""
    if isinstance(features, str):
        counts[features] += 1
        return None
    if task == DAE and all(label == IGNORE for label in features.labels):
        counts[NO_LABEL] += 1
        return None
    if task == PAIR and features.label == IGNORE:
        counts["unknown_label"] += 1
        return None
    counts["used"] += 1
    return features


def parse_mix(text: str, names: Sequence[Sequence[str]]) -> tuple[float, ...]:
    """--mix as one weight per dataset, in the datasets' order: positional ('2,1') or 'NAME=W,...' naming every
    dataset once by its folder name or its pipeline (names[i]: dataset i's names; a name two datasets share is refused)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    weights: list[Optional[float]] = [None] * len(names)
    for position, part in enumerate(parts):
        name, _, value = part.rpartition("=")
        if name:
            matches = [i for i, aliases in enumerate(names) if name in aliases]
            if len(matches) != 1:
                raise ValueError(f"--mix {text!r}: {name!r} names {'no' if not matches else 'more than one'} dataset "
                                 "(use the folder name, the pipeline when only one dataset has it, or weights in order)")
            index = matches[0]
        elif any("=" in p for p in parts):
            raise ValueError(f"--mix {text!r}: give every weight as NAME=W, or all of them in order")
        else:
            index = position
        if name and weights[index] is not None:
            raise ValueError(f"--mix {text!r}: {name!r} is given twice (its dataset is {names[index][0]!r})")
        if index >= len(names) or weights[index] is not None:
            raise ValueError(f"--mix {text!r}: one weight for each of the {len(names)} datasets")
        try:
            weights[index] = float(value)
        except ValueError:
            raise ValueError(f"--mix {text!r}: {value!r} is not a number")
    if None in weights:
        raise ValueError(f"--mix {text!r}: one weight for each of the {len(names)} datasets")
    return tuple(weights)


def check_mix(mix: Sequence[float], datasets: int) -> None:
    """A weight per dataset, each positive and finite."""
    if len(mix) != datasets:
        raise ValueError(f"--mix has {len(mix)} weights for {datasets} datasets")
    for weight in mix:
        if not 0 < weight < math.inf:
            raise ValueError(f"--mix weights must be positive finite numbers, got {weight}")


def check_quotas(datasets: Sequence[str], sizes: Sequence[int], drawn: Sequence[int], mix: Sequence[float]) -> None:
    """A mix that leaves a dataset with rows no draw in an epoch (--mix 1e308,1) is refused by name, not trained
    without it: the user asked for that dataset."""
    for name, size, rows, weight in zip(datasets, sizes, drawn, mix):
        if size and not rows:
            raise ValueError(f"--mix gives {name} (weight {weight:g}) none of the {sum(drawn)} rows an epoch draws; "
                             "raise its weight or leave the dataset out")


def quotas(sizes: Sequence[int], weights: Sequence[float], total: int) -> list[int]:
    """Rows drawn from each dataset per epoch: total shared in proportion to the weights, exactly (largest remainder
    first, ties to the earlier dataset), so they sum to total."""
    weights = [Fraction(w) for w in weights]
    if not total:  # nothing to draw (an empty split): no weights to divide by either
        return [0] * len(weights)
    exact = [total * w / sum(weights) for w in weights]
    drawn = [math.floor(e) for e in exact]
    for i in sorted(range(len(drawn)), key=lambda i: (drawn[i] - exact[i], i))[:total - sum(drawn)]:
        drawn[i] += 1
    return drawn


def drawn_rows(directory: str, split: str, size: int, quota: int) -> Iterator:
    """The split's first `quota` rows, or, past its `size` rows, every row again from the start (repeats); rows are
    in content-hash order, so the first rows are a seed-free uniform sample of the split."""
    while quota > 0:
        read = 0
        for read, row in enumerate(islice(records(directory, split), min(quota, size)), 1):
            yield row
        if not read:
            raise DatasetError(f"{directory} has no {split!r} rows to draw")
        quota -= read


def _placed(index: int, quota: int, rows: Iterable) -> Iterator[tuple]:
    for j, row in enumerate(rows):
        yield Fraction(2 * j + 1, 2 * quota), index, row


def training_stream(datasets: Sequence[str], sizes: Sequence[int], drawn: Sequence[int], split: str) -> Iterator:
    """(dataset index, row) of every dataset's drawn rows, interleaved in proportion: dataset i's row j sits at
    (j + 1/2) / drawn[i] of the stream (ties: the earlier dataset), so any stretch holds the mix's shares."""
    streams = [_placed(i, q, drawn_rows(d, split, n, q)) for i, (d, n, q) in enumerate(zip(datasets, sizes, drawn))
               if q]
    for _, index, row in heapq.merge(*streams, key=lambda placed: placed[:2]):
        yield index, row
