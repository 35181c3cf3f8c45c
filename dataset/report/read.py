"""Rows of a written dataset, streamed shard by shard in manifest order, so a report never holds a whole split."""
from __future__ import annotations

from typing import Iterator

from entailgen.schemas.reader import shard_rows


def dataset_rows(output: str, manifest: dict) -> Iterator[dict]:
    """Every written row, shards in the manifest's (sorted) order (the manifest may not be on disk yet)."""
    for shard in manifest["shards"]:
        yield from shard_rows(output, shard)


def dead_letter_rows(output: str, manifest: dict) -> Iterator[dict]:
    """Every dead letter of the dataset."""
    return shard_rows(output, manifest["dead_letters"])
