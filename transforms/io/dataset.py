"""A finished entailgen dataset as input (a folder with manifest.json, read through schemas.reader), so one family
builds on another's output: nli-dialogue over a claims, recast or dae dataset as over NLI JSON lines."""
from __future__ import annotations

from typing import Iterator

from apache_beam.io.filesystems import FileSystems

from entailgen.schemas.reader import load_manifest, read_dataset
from entailgen.schemas.records import RECORD_TYPES
from entailgen.schemas.sources import DatasetRow
from entailgen.transforms.io.base import ReaderConfig

DATASET = "entailgen-dataset"


def check_dataset(path: str) -> None:
    """ValueError (one line) for a dataset folder whose rows cannot be read: a manifest that is not JSON, or a record
    type entailgen does not know."""
    manifest = load_manifest(path)
    if manifest.get("record_type") not in RECORD_TYPES:
        raise ValueError(f"input {path}: its manifest names record type {manifest.get('record_type')!r}, not one of "
                         f"entailgen's ({', '.join(RECORD_TYPES)})")


def read_dataset_rows(path: str, config: ReaderConfig = ReaderConfig()) -> Iterator[DatasetRow]:
    """Every row of every split, in manifest order, as a DatasetRow named by the folder and the row's id; each shard's
    sha256 is checked against the manifest as it is read."""
    name = FileSystems.split(path.rstrip("/"))[1]
    for record in read_dataset(path, as_records=True, verify=True):
        yield DatasetRow(record.id, name, record)
