"""Rows of a written dataset, streamed shard by shard in manifest order, so a report never holds a whole split."""
from __future__ import annotations

import json
from typing import Iterator

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from entailgen.transforms.shard import join_path

BATCH_ROWS = 1024


def iter_shard(path: str) -> Iterator[dict]:
    """Rows of one shard file as dicts, a batch at a time (Parquet) or a line at a time (JSON Lines)."""
    with FileSystems.open(path) as f:
        if path.endswith(".jsonl"):
            for line in f:
                if line.strip():
                    yield json.loads(line)
            return
        for batch in pq.ParquetFile(f).iter_batches(batch_size=BATCH_ROWS):
            yield from batch.to_pylist()


def dataset_rows(output: str, manifest: dict) -> Iterator[dict]:
    """Every written row, shards in the manifest's (sorted) order."""
    for shard in manifest["shards"]:
        yield from iter_shard(join_path(output, shard["path"]))


def dead_letter_rows(output: str, manifest: dict) -> Iterator[dict]:
    """Every dead letter of the dataset."""
    return iter_shard(join_path(output, manifest["dead_letters"]["path"]))
