"""What every corpus family shares: the run configuration it is built from and the outputs it hands back."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import apache_beam as beam

from entailgen.dataset.shard import ShardConfig
from entailgen.dataset.split import SplitConfig
from entailgen.schemas.records import Skipped
from entailgen.transforms.io import ReaderConfig
from entailgen.transforms.io.formats import FORMAT_RECORDS
from entailgen.transforms.parser import ParserConfig


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a dataset; the manifest records it (less the output location) so a run can be repeated."""

    pipeline: str
    inputs: tuple[str, ...]
    output: str
    input_format: Optional[str] = None
    format: str = "parquet"
    num_shards: int = 1
    seed: int = 0
    splits: SplitConfig = SplitConfig()
    parser: ParserConfig = ParserConfig()
    reader: ReaderConfig = ReaderConfig()
    family: Any = None  # the family's own frozen options dataclass

    @property
    def shards(self) -> ShardConfig:
        """Where and how shards go."""
        return ShardConfig(self.output, self.format, self.num_shards)

    def manifest_config(self) -> dict:
        """The dataset-defining settings, JSON-able, without paths that differ between machines."""
        config = dataclasses.asdict(self)
        del config["output"], config["inputs"]
        return config


@dataclass
class FamilyOutput:
    """A family's outputs: records to split and shard, dead letters, the split context, and what the manifest adds.

    records: one PCollection, or a list of branches made in different stages. The job splits, counts and spills each
    branch where it is made: a local runner would hold a flatten of them whole.
    skipped: inputs left out on purpose (each with source, stage, reason), counted so nothing is lost silently.
    stats: name -> CombineFn over the split records, or a one-value PCollection; goes into the manifest's stats.
    exports: name -> PTransform over the split records yielding file infos (path, rows, sha256) for the manifest.
    counts: ((counter, key), n) the family adds to the manifest's counts (e.g. arcs left out, by reason).
    """

    records: beam.PCollection | list[beam.PCollection]
    dead: beam.PCollection
    context: Callable[[Any], str]
    skipped: Optional[beam.PCollection] = None
    stats: dict[str, Any] = field(default_factory=dict)
    exports: dict[str, beam.PTransform] = field(default_factory=dict)
    counts: Optional[beam.PCollection] = None

    @property
    def branches(self) -> tuple[beam.PCollection, ...]:
        """The records as a tuple of branches."""
        return tuple(self.records) if isinstance(self.records, (list, tuple)) else (self.records,)


@dataclass(frozen=True)
class Family:
    """A corpus family: its record type, embedded samples, CLI options and the build that wires its transforms."""

    name: str
    record_type: type
    samples: tuple[str, ...]  # files under samples/ that --sample reads (formats detected)
    build: Callable[[beam.PCollection, RunConfig], FamilyOutput]
    summary: str
    add_arguments: Callable[[Any], None] = lambda group: None
    options: Callable[[Any], Any] = lambda args: None
    gpu: Callable[[Any], bool] = lambda options: False  # does a run with these family options generate on GPU?
    # the source record types build uses with these family options (others are NotUsed skips); () = any
    accepts: Callable[[Any], tuple[type, ...]] = lambda options: ()
    input_format: Optional[str] = None  # the format its inputs are read in when --input-format is not given
    # does a run with these family options run the dependency parser (else --parser flags are refused)?
    parses: Callable[[Any], bool] = lambda options: False

    def formats(self, options: Any = None) -> tuple[str, ...]:
        """The input formats whose records this family uses: a file in another format cannot give it a record."""
        accepted = self.accepts(options)
        return tuple(fmt for fmt, record in FORMAT_RECORDS.items() if not accepted or record in accepted)


def select(sources: beam.PCollection, record_type: type | tuple[type, ...], family: str):
    """(records of record_type (or of any of a tuple's), Skipped for every other input record): a family never drops
    what it cannot use."""
    names = "+".join(t.__name__ for t in (record_type if isinstance(record_type, tuple) else (record_type,)))
    parts = sources | f"Select {names}" >> beam.Partition(
        lambda r, _: 0 if isinstance(r, record_type) else 1, 2)
    skipped = parts[1] | "NotUsed" >> beam.Map(
        lambda r: Skipped(r.source, r.source_id, family, f"NotUsed:{type(r).__name__}"))
    return parts[0], skipped
