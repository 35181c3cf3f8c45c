"""Deterministic sharded output: rows go to shards by id hash, in sorted order, under temp names then renamed."""
from __future__ import annotations

import hashlib
import heapq
import io
import itertools
import json
import uuid
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

from entailgen.schemas.arrow import arrow_schema, json_text, to_row
from entailgen.schemas.files import SHARD_FORMATS
from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import DeadLetter

DEAD_LETTERS = "dead_letters"
RUNS = ".runs"  # sorted runs of rows, merged into shards and deleted
RUN_ROWS = 20_000  # rows a worker holds before it spills them as sorted runs
ROW_GROUP = 10_000  # rows per Parquet row group


@dataclass(frozen=True)
class ShardConfig:
    """Where and how shards are written."""

    output: str
    format: str = "parquet"
    num_shards: int = 1

    def __post_init__(self):
        if self.format not in SHARD_FORMATS:
            raise ValueError(f"unknown output format {self.format!r}; choose one of {', '.join(SHARD_FORMATS)}")
        if self.num_shards < 1:
            raise ValueError(f"--num-shards must be at least 1, got {self.num_shards}")


def shard_index(record_id: str, num_shards: int) -> int:
    """The shard a record goes to: a stable hash of its id."""
    return int(unit_hash("shard", record_id) * num_shards)


def shard_path(split: str, index: int, num_shards: int, fmt: str) -> str:
    """Relative path of one shard, Hugging Face style: split/split-00000-of-00004.parquet."""
    return f"{split}/{split}-{index:05d}-of-{num_shards:05d}.{fmt}"


def run_line(row: dict) -> str:
    """A row as one line of a sorted run: its JSON id, a tab, its JSON Lines text; lines sort in shard order."""
    return json.dumps(row["id"]) + "\t" + json_text(row)


def line_row(line: str) -> dict:
    """The row a run line holds."""
    return json.loads(line.split("\t", 1)[1])


def sorted_rows(records: Iterable) -> list[dict]:
    """Rows in a total order (id, then full content), so shard bytes never depend on arrival order."""
    return [line_row(line) for line in sorted(run_line(to_row(r)) for r in records)]


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


class _Digest:
    """A write-only file that hashes and counts what passes through it, so no shard is read back or held whole."""

    def __init__(self, f):
        self.f, self.hash, self.size, self.closed = f, hashlib.sha256(), 0, False

    def write(self, data) -> int:
        data = bytes(data)
        self.hash.update(data)
        self.size += len(data)
        self.f.write(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


@contextmanager
def atomic_create(path: str) -> Iterator[_Digest]:
    """Write to a temporary sibling name, then rename: a reader never sees a half-written file."""
    directory, name = FileSystems.split(path)
    _ensure_dir(directory)
    tmp = FileSystems.join(directory, f".tmp-{name}")
    with FileSystems.create(tmp) as f:
        sink = _Digest(f)
        yield sink
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([tmp], [path])


def write_atomically(path: str, data: bytes) -> None:
    """Write bytes to a temporary sibling name, then rename."""
    with atomic_create(path) as sink:
        sink.write(data)


def write_file(output: str, relative: str, data: bytes, **info) -> dict:
    """Write one dataset file atomically and describe it for the manifest (path, sha256, bytes, plus info)."""
    with atomic_create(join_path(output, relative)) as sink:
        sink.write(data)
    return {"path": relative, **info, "sha256": sink.hash.hexdigest(), "bytes": sink.size}


def batched(items: Iterable, size: int) -> Iterator[list]:
    """Consecutive lists of at most size items."""
    it = iter(items)
    while group := list(itertools.islice(it, size)):
        yield group


def encode_rows(sink, rows: Iterable[dict], record_type: type, fmt: str) -> int:
    """Rows into a writable file, a Parquet row group at a time (record type's schema) or as JSON Lines; the count."""
    count = 0
    if fmt == "jsonl":
        for row in rows:
            sink.write((json_text(row) + "\n").encode("utf-8"))
            count += 1
        return count
    schema = arrow_schema(record_type)
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        for group in batched(rows, ROW_GROUP):
            writer.write_table(pa.Table.from_pylist(group, schema=schema))
            count += len(group)
    return count


def encode_shard(rows: list[dict], record_type: type, fmt: str) -> bytes:
    """The bytes of one shard of rows, as write_rows writes them."""
    buf = io.BytesIO()
    encode_rows(_Digest(buf), rows, record_type, fmt)
    return buf.getvalue()


def write_rows(output: str, relative: str, split: str, rows: Iterable[dict], record_type: type, fmt: str) -> dict:
    """Stream rows, already in shard order, into one shard file and describe it for the manifest."""
    with atomic_create(join_path(output, relative)) as sink:
        count = encode_rows(sink, rows, record_type, fmt)
    return {"path": relative, "split": split, "rows": count, "sha256": sink.hash.hexdigest(), "bytes": sink.size}


def write_shard(output: str, relative: str, split: str, records: Iterable, record_type: type, fmt: str) -> dict:
    """Write one shard of records, sorted in memory, and describe it for the manifest (path, split, rows, sha256)."""
    return write_rows(output, relative, split, sorted_rows(records), record_type, fmt)


def read_run(path: str) -> Iterator[str]:
    """The lines of one sorted run file, streamed."""
    with FileSystems.open(path) as f:
        for line in io.TextIOWrapper(f, encoding="utf-8"):
            yield line.rstrip("\n")


def merge_runs(output: str, relative: str, split: str, runs: Iterable[str], record_type: type, fmt: str) -> dict:
    """One shard from its sorted runs by a streaming k-way merge (the runs stay, so a retried merge can rerun)."""
    lines = heapq.merge(*map(read_run, sorted(runs)))
    return write_rows(output, relative, split, (line_row(line) for line in lines), record_type, fmt)


def remove_runs(output: str) -> None:
    """Delete the runs folder once the pipeline is done, with any spills of retried bundles."""
    runs = join_path(output, RUNS)
    if FileSystems.exists(runs):  # a local folder, with whatever is left in it
        FileSystems.delete([runs])
        return
    leftovers = [m.path for r in FileSystems.match([join_path(runs, "*")]) for m in r.metadata_list]
    if leftovers:  # object stores have no folders, only the files
        FileSystems.delete(leftovers)


class _SpillRuns(beam.DoFn):
    """Rows buffered by (split, shard) and spilled as sorted run files whenever run_rows are held, so a worker never
    holds more than run_rows rows however large the dataset; yields ((split, shard), run path)."""

    def __init__(self, config: ShardConfig, run_rows: int):
        self.config, self.run_rows = config, run_rows

    def setup(self):
        _ensure_dir(join_path(self.config.output, RUNS))

    def start_bundle(self):
        self.buffers: dict[tuple[str, int], list[str]] = defaultdict(list)
        self.held = 0

    def process(self, record):
        self.buffers[(record.split, shard_index(record.id, self.config.num_shards))].append(run_line(to_row(record)))
        self.held += 1
        if self.held >= self.run_rows:
            yield from self.spill()

    def finish_bundle(self):
        for key_path in self.spill():
            yield GlobalWindows.windowed_value(key_path)

    def spill(self) -> Iterator[tuple[tuple[str, int], str]]:
        for key in sorted(self.buffers):
            path = join_path(self.config.output, f"{RUNS}/{key[0]}-{key[1]:05d}-{uuid.uuid4().hex}.txt")
            with FileSystems.create(path) as f:  # a unique name no one reads unless this bundle succeeds
                f.write("".join(line + "\n" for line in sorted(self.buffers[key])).encode("utf-8"))
            yield key, path
        self.buffers.clear()
        self.held = 0


class WriteShards(beam.PTransform):
    """Split-tagged records (one PCollection or a tuple of branches) -> one file per non-empty (split, shard); yields
    shard infos for the manifest.

    Rows are never grouped: workers spill sorted runs of at most run_rows rows and only run names are shuffled, then
    each shard is a streaming merge of its runs, so writing holds no shard whole however large the dataset. Call
    remove_runs once the pipeline is done. Empty shards are not written: Hugging Face `datasets` refuses a Parquet
    file without rows.
    """

    def __init__(self, config: ShardConfig, record_type: type, run_rows: int = RUN_ROWS):
        super().__init__()
        self.config, self.record_type, self.run_rows = config, record_type, run_rows

    def expand(self, records):
        c, n = self.config, self.config.num_shards
        branches = records if isinstance(records, (tuple, list)) else (records,)  # spilled where each is made
        return ([b | f"Spill {i}" >> beam.ParDo(_SpillRuns(c, self.run_rows)) for i, b in enumerate(branches)]
                | "AllRuns" >> beam.Flatten()
                | "Runs" >> beam.GroupByKey()
                | "Merge" >> beam.MapTuple(lambda key, runs: merge_runs(
                    c.output, shard_path(key[0], key[1], n, c.format), key[0], runs, self.record_type, c.format)))


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
