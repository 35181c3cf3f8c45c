"""Trainer side: read a finished dataset through its manifest, as rows, records or a shard-aware PyTorch dataset.

Only pyarrow and the standard library are needed (torch for ShardedIterableDataset), so a training job can depend on
entailgen's schemas without Apache Beam. Paths may be local or any URI pyarrow.fs understands (gs://, s3://).
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterator, Optional

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from entailgen.schemas.arrow import from_row
from entailgen.schemas.records import RECORD_TYPES, DeadLetter

MANIFEST = "manifest.json"
DEAD_LETTERS = "dead_letters"
_BATCH_ROWS = 1024
_CHUNK = 1 << 20


class IncompleteDataset(FileNotFoundError):
    """A directory without manifest.json: the run that wrote it has not finished (or it is not a dataset)."""


class ChecksumMismatch(ValueError):
    """A shard whose bytes differ from the sha256 its manifest records: it was altered or truncated after the run."""


class UnreadableShard(ValueError):
    """A shard the manifest lists that is missing or cannot be parsed: the dataset was damaged after its run."""


def _filesystem(directory: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow filesystem and in-filesystem path for a local path or a URI."""
    if "://" in directory:
        return pafs.FileSystem.from_uri(directory)
    return pafs.LocalFileSystem(), directory


def _join(root: str, relative: str) -> str:
    return root.rstrip("/") + "/" + relative


def manifest_sha256(directory: str) -> str:
    """sha256 of the dataset's manifest.json bytes, which pins every shard's sha256."""
    fs, root = _filesystem(directory)
    with fs.open_input_stream(_join(root, MANIFEST)) as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_manifest(directory: str) -> dict:
    """The dataset's manifest; a directory without one is refused, since its shards may be partial."""
    fs, root = _filesystem(directory)
    path = _join(root, MANIFEST)
    if fs.get_file_info(path).type != pafs.FileType.File:
        raise IncompleteDataset(f"{directory} has no {MANIFEST}: not an entailgen dataset, or its run did not finish")
    with fs.open_input_stream(path) as f:
        data = f.read()
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{directory}: {MANIFEST} is not valid JSON ({e}); the dataset is damaged")


def shard_entries(manifest: dict, split: Optional[str] = None) -> list[dict]:
    """The manifest's shard entries for one split (all splits when None; 'dead_letters' for the dead letters)."""
    if split == DEAD_LETTERS:
        return [manifest["dead_letters"]]
    if split is not None and split not in manifest["splits"]:
        raise KeyError(f"no split {split!r} in this dataset; it has {', '.join(sorted(manifest['splits']))}")
    return [s for s in manifest["shards"] if split is None or s["split"] == split]


def record_type_of(manifest: dict, split: Optional[str] = None) -> type:
    """The record dataclass the rows of a split rebuild into, as named in the manifest."""
    return DeadLetter if split == DEAD_LETTERS else RECORD_TYPES[manifest["record_type"]]


def _file_sha256(fs: pafs.FileSystem, path: str) -> str:
    digest = hashlib.sha256()
    with fs.open_input_stream(path) as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _differs(fs: pafs.FileSystem, path: str, expected: str) -> bool:
    """Whether a readable file's sha256 is not the expected one (an unreadable file is left to its own error)."""
    try:
        return _file_sha256(fs, path) != expected
    except OSError:
        return False


def _mismatch(directory: str, entry: dict) -> ChecksumMismatch:
    return ChecksumMismatch(f"{entry['path']} in {directory}: sha256 differs from the manifest (the shard was changed "
                            "or damaged after its run)")


def _jsonl_rows(f, digest) -> Iterator[dict]:
    """Rows of a JSON Lines stream read in chunks, each chunk hashed as it is read (digest None: not hashed)."""
    pending = b""
    while chunk := f.read(_CHUNK):
        if digest is not None:
            digest.update(chunk)
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            if line.strip():
                yield json.loads(line)
    if pending.strip():
        yield json.loads(pending)


def shard_rows(directory: str, entry: dict, verify: bool = False) -> Iterator[dict]:
    """Rows of one shard, streamed in batches. verify: the shard's sha256 is checked against the manifest's, as the
    bytes are read (JSON Lines: the mismatch is raised at the shard's end) or in a pass before its rows (Parquet is
    read out of order). A missing or unparsable shard is one line naming it, not a parser's traceback."""
    fs, root = _filesystem(directory)
    path = _join(root, entry["path"])
    expected = entry.get("sha256") if verify else None
    try:
        if entry["path"].endswith(".jsonl"):
            digest = hashlib.sha256() if expected else None
            with fs.open_input_stream(path) as f:
                yield from _jsonl_rows(f, digest)
            if digest is not None and digest.hexdigest() != expected:
                raise _mismatch(directory, entry)
        else:
            if expected and _differs(fs, path, expected):
                raise _mismatch(directory, entry)
            with fs.open_input_file(path) as f:
                for batch in pq.ParquetFile(f).iter_batches(batch_size=_BATCH_ROWS):
                    yield from batch.to_pylist()
    except ChecksumMismatch:
        raise
    except FileNotFoundError:
        raise UnreadableShard(f"{entry['path']} is missing from {directory} (its manifest lists it)")
    except (OSError, ValueError, pa.ArrowException) as e:  # ArrowInvalid, JSONDecodeError, UnicodeDecodeError
        if expected and _differs(fs, path, expected):
            raise _mismatch(directory, entry)
        raise UnreadableShard(f"{entry['path']} in {directory} cannot be read ({str(e).splitlines()[0]}); "
                              "the dataset is damaged")


def read_dataset(directory: str, split: Optional[str] = None, as_records: bool = False,
                 verify: bool = False) -> Iterator:
    """Every row of a split (or of all splits) in manifest order, as dicts or as the manifest's record type."""
    manifest = load_manifest(directory)
    record_type = record_type_of(manifest, split)
    for entry in shard_entries(manifest, split):
        for row in shard_rows(directory, entry, verify):
            yield from_row(record_type, row) if as_records else row


try:
    from torch.utils.data import IterableDataset, get_worker_info
except ImportError:  # torch is optional on the trainer side
    IterableDataset, get_worker_info = object, None


class ShardedIterableDataset(IterableDataset):
    """A split as a PyTorch IterableDataset: DataLoader worker i of n reads shards i, i+n, ...: each row comes once."""

    def __init__(self, directory: str, split: str, as_records: bool = False, verify: bool = False):
        if get_worker_info is None:
            raise ImportError("ShardedIterableDataset needs torch (pip install torch)")
        super().__init__()
        self.directory, self.split, self.as_records, self.verify = directory, split, as_records, verify
        manifest = load_manifest(directory)
        self.entries = shard_entries(manifest, split)
        self.record_type = record_type_of(manifest, split)

    def __len__(self) -> int:
        """Rows in the split (from the manifest), for progress bars and schedulers."""
        return sum(e["rows"] for e in self.entries)

    def __iter__(self):
        worker = get_worker_info()
        index, count = (worker.id, worker.num_workers) if worker is not None else (0, 1)
        for entry in self.entries[index::count]:
            for row in shard_rows(self.directory, entry, self.verify):
                yield from_row(self.record_type, row) if self.as_records else row
