"""The names on disk that every layer shares, without Beam: the shard formats and the file that makes a detector dir.

`entailgen --help` (the --format choices) and the Beam-free scorers read them here; nothing below schemas imports."""
from __future__ import annotations

SHARD_FORMATS = ("parquet", "jsonl")  # what a dataset's shards are written as (--format)
DETECTOR_JSON = "detector.json"  # what `entailgen detector` writes last into a detector dir: a dir without it is none
