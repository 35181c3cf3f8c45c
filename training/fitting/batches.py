"""A training epoch's examples on their way to the model: featurized (the unusable ones counted by reason) and
bucketed into batches of like lengths."""
from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Iterator

from entailgen.training.fitting.data import usable


def bucketed(features: Iterable, size: int, pool_batches: int, rng: random.Random) -> Iterator[list]:
    """Batches of like lengths in a random order: each pool of pool_batches * size examples (in the order read) is
    sorted by length (stable), cut into batches, and the batches shuffled with the seeded rng; every example lands in
    exactly one batch. Padding to a batch's longest example then costs little (length-bucketed batching)."""
    pool: list = []
    for f in features:
        pool.append(f)
        if len(pool) == size * pool_batches:
            yield from _cut(pool, size, rng)
            pool = []
    if pool:
        yield from _cut(pool, size, rng)


def _cut(pool: list, size: int, rng: random.Random) -> list[list]:
    ordered = sorted(pool, key=lambda f: len(f.input_ids))
    cut = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    rng.shuffle(cut)
    return cut


def featurized(examples: Iterable, task: str, featurize, counts: list, notes: list) -> Iterator:
    """(dataset index, Features) of each usable example; the others counted by reason in counts[index], premises cut
    to fit counted in notes[index]."""
    for index, example in examples:
        features = usable(task, featurize(example), counts[index])
        if features is not None:
            if features.truncated:
                notes[index]["truncated"] += 1
            yield index, features


def counts_of(counts: Counter) -> dict:
    """Read, used and each reason an example was left out."""
    return {"read": sum(counts.values()), **dict(sorted(counts.items()))}
