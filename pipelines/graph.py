"""The whole job graph: the shared read, the family's transforms, then split -> shard -> the staged summary the
manifest is made from (dataset/)."""
from __future__ import annotations

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from entailgen.dataset.accounting import CountUnits
from entailgen.dataset.branches import CombineBranches, EachBranch
from entailgen.dataset.manifest import StageSummary, count_by
from entailgen.dataset.shard import WriteDeadLetters, WriteShards
from entailgen.dataset.split import AssignSplit
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.transforms.io import ReadInputs
from entailgen.transforms.separability import SEPARABLE, MeasureSeparability


def _statistic(branches, name: str, stat):
    """A family statistic: a CombineFn over the split records of every branch, or a one-value PCollection it computed
    itself."""
    if isinstance(stat, beam.pvalue.PCollection):
        return stat
    return branches | f"Stat {name}" >> CombineBranches(stat)


def spreads_units(options: PipelineOptions) -> bool:
    """Whether read units are redistributed over the workers: not on a one-worker DirectRunner, where it cannot help
    and its shuffle would hold every input unit in the driver's memory."""
    runner = options.view_as(StandardOptions).runner  # a name, a runner, or None for the DirectRunner
    direct = runner is None or "direct" in str(runner).lower()
    return not direct or options.view_as(DirectOptions).direct_num_workers != 1


def build_job(p: beam.Pipeline, config: RunConfig) -> None:
    """Wire the whole job into p: the family's transforms between the shared read and write stages."""
    family = get_family(config.pipeline)
    read = p | "Read" >> ReadInputs(list(config.inputs), config.input_format, config.reader)
    sources = read.records
    if spreads_units(p.options):  # a file is read by one worker; its units go to all
        sources = sources | "Distribute" >> beam.Reshuffle()
    out = family.build(sources, config)
    branches = out.branches | "Split" >> EachBranch(lambda: AssignSplit(config.splits, out.context))
    dead = (read.dead, out.dead) | "AllDead" >> beam.Flatten()
    skipped = out.skipped if out.skipped is not None else p | "NoSkipped" >> beam.Create([])
    counts = (
        count_by(read.records, "read", lambda r: r.source, label="CountReadRecords"),
        count_by(read.dead, "read", lambda d: d.source, label="CountReadDead"),
        *(count_by(b, "records_by_source", lambda r: r.source, label=f"CountRecords {i}")
          for i, b in enumerate(branches)),
        count_by(dead, "dead_by_source", lambda d: d.source),
        count_by(dead, "dead_by_stage", lambda d: f"{d.stage}:{d.error_type}"),
        (*branches, dead, skipped) | "CountUnits" >> CountUnits(  # units: with output, skipped or dead
            FileSystems.split(path)[1] for path in config.inputs),
        *((out.counts,) if out.counts is not None else ()),
    ) | "AllCounts" >> beam.Flatten() | "SumCounts" >> beam.CombinePerKey(sum)
    stats = [_statistic(branches, name, stat) | f"Name {name}" >> beam.Map(lambda v, n=name: (n, v))
             for name, stat in sorted(out.stats.items())]
    stats = (stats or [p | "NoStats" >> beam.Create([])]) | "AllStats" >> beam.Flatten()
    if out.exports:  # an export needs every record in one PCollection
        records = branches | "Records" >> beam.Flatten()
        exports = [records | f"Export {name}" >> export for name, export in sorted(out.exports.items())]
    else:
        exports = [p | "NoExports" >> beam.Create([])]
    exports = exports | "AllExports" >> beam.Flatten()
    separability = (branches | "Separability" >> MeasureSeparability() if issubclass(family.record_type, SEPARABLE)
                    else p | "NoSeparability" >> beam.Create([]))
    {
        "shards": branches | "Shards" >> WriteShards(config.shards, family.record_type),
        "dead_letters": dead | "DeadLetters" >> WriteDeadLetters(config.shards),
        "counts": counts,
        "stats": stats,
        "exports": exports,
        "separability": separability,
    } | "Stage" >> StageSummary(config.output)
