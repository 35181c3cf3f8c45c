"""Deterministic sharded output: rows go to shards by id hash, are sorted, and land under temp names then rename."""
from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import Iterable

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from entailgen.schemas.arrow import arrow_schema, json_text, to_row
from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import DeadLetter

FORMATS = ("parquet", "jsonl")
DEAD_LETTERS = "dead_letters"


@dataclass(frozen=True)
class ShardConfig:
    """Where and how shards are written."""

    output: str
    format: str = "parquet"
    num_shards: int = 1

    def __post_init__(self):
        if self.format not in FORMATS:
            raise ValueError(f"unknown output format {self.format!r}; choose one of {', '.join(FORMATS)}")
        if self.num_shards < 1:
            raise ValueError(f"--num-shards must be at least 1, got {self.num_shards}")


def shard_index(record_id: str, num_shards: int) -> int:
    """The shard a record goes to: a stable hash of its id."""
    return int(unit_hash("shard", record_id) * num_shards)


def shard_path(split: str, index: int, num_shards: int, fmt: str) -> str:
    """Relative path of one shard, Hugging Face style: split/split-00000-of-00004.parquet."""
    return f"{split}/{split}-{index:05d}-of-{num_shards:05d}.{fmt}"


def sorted_rows(records: Iterable) -> list[dict]:
    """Rows in a total order (id, then full content), so shard bytes never depend on arrival order."""
    rows = sorted((to_row(r) for r in records), key=lambda row: row["id"])
    ordered, start = [], 0
    for end in range(1, len(rows) + 1):  # runs of equal ids (identical inputs) are ordered by content too
        if end == len(rows) or rows[end]["id"] != rows[start]["id"]:
            run = rows[start:end]
            ordered.extend(run if len(run) == 1 else sorted(run, key=lambda row: json.dumps(row, sort_keys=True)))
            start = end
    return ordered


def encode_shard(rows: list[dict], record_type: type, fmt: str) -> bytes:
    """The bytes of one shard: Parquet with the record type's schema, or JSON Lines of the same rows."""
    if fmt == "jsonl":
        return "".join(json_text(row) + "\n" for row in rows).encode("utf-8")
    table = pa.Table.from_pylist(rows, schema=arrow_schema(record_type))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def join_path(root: str, relative: str) -> str:
    """root/relative for local paths and gs:// alike."""
    return FileSystems.join(root, *relative.split("/"))


def _ensure_dir(directory: str) -> None:
    """mkdir -p that tolerates a parallel worker creating the same directory first."""
    if FileSystems.exists(directory):
        return
    try:
        FileSystems.mkdirs(directory)
    except IOError:
        if not FileSystems.exists(directory):
            raise


def write_atomically(path: str, data: bytes) -> None:
    """Write to a temporary sibling name, then rename: a reader never sees a half-written file."""
    directory, name = FileSystems.split(path)
    _ensure_dir(directory)
    tmp = FileSystems.join(directory, f".tmp-{name}")
    with FileSystems.create(tmp) as f:
        f.write(data)
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([tmp], [path])


def write_file(output: str, relative: str, data: bytes, **info) -> dict:
    """Write one dataset file atomically and describe it for the manifest (path, sha256, bytes, plus info)."""
    write_atomically(join_path(output, relative), data)
    return {"path": relative, **info, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def write_shard(output: str, relative: str, split: str, records: Iterable, record_type: type, fmt: str) -> dict:
    """Write one shard and describe it for the manifest (path, split, rows, sha256, bytes)."""
    rows = sorted_rows(records)
    return write_file(output, relative, encode_shard(rows, record_type, fmt), split=split, rows=len(rows))


class WriteShards(beam.PTransform):
    """Split-tagged records -> one file per non-empty (split, shard); yields shard infos for the manifest.

    Empty shards are not written: Hugging Face `datasets` refuses a Parquet file without rows.
    """

    def __init__(self, config: ShardConfig, record_type: type):
        super().__init__()
        self.config, self.record_type = config, record_type

    def expand(self, records):
        c, n = self.config, self.config.num_shards
        return (records | "Key" >> beam.Map(lambda r: ((r.split, shard_index(r.id, n)), r))
                | "Group" >> beam.GroupByKey()
                | "Write" >> beam.MapTuple(lambda key, rs: write_shard(
                    c.output, shard_path(key[0], key[1], n, c.format), key[0], rs, self.record_type, c.format)))


class WriteDeadLetters(beam.PTransform):
    """All dead letters into one sorted shard of their own (present, possibly empty, in every dataset)."""

    def __init__(self, config: ShardConfig):
        super().__init__()
        self.config = config

    def expand(self, dead):
        c = self.config
        relative = shard_path(DEAD_LETTERS, 0, 1, c.format)
        return ((dead | "Key" >> beam.Map(lambda d: (0, d)),
                 dead.pipeline | "Always" >> beam.Create([(0, None)]))
                | "Flatten" >> beam.Flatten() | "Group" >> beam.GroupByKey()
                | "Write" >> beam.MapTuple(lambda _, ds: write_shard(
                    c.output, relative, DEAD_LETTERS, (d for d in ds if d is not None), DeadLetter, c.format)))
