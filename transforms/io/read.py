"""Reading input files in a pipeline: one source record or DeadLetter out per unit in, on any Beam filesystem."""
from __future__ import annotations

import dataclasses
from typing import Iterator, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.io.filesystems import FileSystems

from entailgen.schemas.records import DeadLetter
from entailgen.transforms.io.base import DEAD, ReaderConfig
from entailgen.transforms.io.encoding import lines_of, utf8_chunks
from entailgen.transforms.io.formats import CHUNKED, FOLDERS, detect_format, reader_for


def read_file(path: str, fmt: Optional[str] = None, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """Every unit of a file (local, gs://, compressed) as a source record or DeadLetter, streamed; source: basename.

    A byte-order mark decides the encoding (UTF-8, UTF-16, UTF-32) over config.encoding; readers get UTF-8 then."""
    fmt = fmt or detect_format(path)
    reader = reader_for(fmt)
    if fmt in FOLDERS:  # a finished dataset: its rows through its manifest
        yield from reader(path, config)
        return
    source = FileSystems.split(path)[1]
    with FileSystems.open(path) as handle:
        chunks, bom = utf8_chunks(iter(lambda: handle.read(config.chunk_bytes), b""))
        if bom is not None:
            config = dataclasses.replace(config, encoding="utf-8")
        yield from reader(chunks if fmt in CHUNKED else lines_of(chunks), source, config)


class _ReadUnits(beam.DoFn):
    """Stream one file's units: records to the main output, DeadLetters to 'dead', each counted."""

    def __init__(self, fmt: Optional[str], config: ReaderConfig):
        self.fmt = fmt
        self.config = config
        self.read = beam.metrics.Metrics.counter("entailgen", "read")
        self.dead = beam.metrics.Metrics.counter("entailgen", "read_dead")

    def process(self, path: str):
        for unit in read_file(path, self.fmt, self.config):
            self.read.inc()
            if isinstance(unit, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, unit)
            else:
                yield unit


class ReadInputs(beam.PTransform):
    """Input files -> source records ('records') and DeadLetters ('dead'); no format given: detected per file."""

    def __init__(self, paths: Sequence[str], fmt: Optional[str] = None, config: ReaderConfig = ReaderConfig()):
        super().__init__()
        if fmt is not None:
            reader_for(fmt)  # an unknown format fails here, while the pipeline is built
        self.paths, self.fmt, self.config = list(paths), fmt, config

    def expand(self, pbegin):
        return (pbegin
                | "Paths" >> beam.Create(self.paths)
                | "Spread" >> beam.Reshuffle()  # one file per worker, not all files in Create's single bundle
                | "Units" >> beam.ParDo(_ReadUnits(self.fmt, self.config)).with_outputs(DEAD, main="records"))
