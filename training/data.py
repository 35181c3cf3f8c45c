"""What the trainer reads: a finished dataset through schemas.reader, its task, and record -> model features."""
from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Iterable, Iterator, Optional

from entailgen.schemas.reader import IncompleteDataset, _filesystem, _join, load_manifest, read_dataset
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, THREE_WAY
from entailgen.training.features import IGNORE, NO_LABEL, UNKNOWN_RELATION, arc_features, pair_features
from entailgen.training.models import DAE, PAIR

TASKS = {"ArcExample": DAE, "RtePair": PAIR}
TWO_WAY = (ENTAILED, NOT_ENTAILED)


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
                           f"{', '.join(TASKS)} (dae, recast, nli-dialogue datasets)")
    return manifest, task


def manifest_sha256(directory: str) -> str:
    """sha256 of the dataset's manifest.json bytes, which pins every shard's sha256."""
    fs, root = _filesystem(directory)
    with fs.open_input_stream(_join(root, "manifest.json")) as f:
        return hashlib.sha256(f.read()).hexdigest()


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


def vocabulary(directory: str, task: str, split: str = "train") -> list[str]:
    """Relations seen in the split (dae; <unk> first) or label names: 3-way when every row keeps a 3-way label."""
    if task == DAE:
        return [UNKNOWN_RELATION] + sorted({a.rel for r in records(directory, split) for a in r.arcs})
    has_three = [r.label3 in THREE_WAY for r in records(directory, split)]
    return list(THREE_WAY) if has_three and all(has_three) else list(TWO_WAY)


def label_index(record, labels: list[str]) -> int:
    """The record's label as an index into the model's label names."""
    name = record.label3 if len(labels) == 3 else record.label
    return labels.index(name) if name in labels else IGNORE


def featurizer(task: str, tokenizer, meta: dict, max_arcs: Optional[int]):
    """record -> its Features, or the reason it cannot be used."""
    if task == DAE:
        relations = {r: i for i, r in enumerate(meta["relations"])}
        return lambda record: arc_features(tokenizer, record, relations, meta["max_length"], max_arcs)
    return lambda record: pair_features(tokenizer, record.premise, record.hypothesis,
                                        label_index(record, meta["labels"]), meta["max_length"])


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
