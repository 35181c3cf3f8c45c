"""Run one family end to end: read -> family build -> split -> shard -> manifest (written last, by the driver)."""
from __future__ import annotations

import platform
import time
from datetime import datetime, timezone
from typing import Optional

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

import entailgen
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.runners.dataflow import check_cloud_paths, dataflow_args, dry_run, is_dry_run, needs_gpu
from entailgen.transforms.branches import CombineBranches, EachBranch
from entailgen.transforms.io import ReadInputs
from entailgen.transforms.io.paths import option_paths
from entailgen.transforms.manifest import (MANIFEST, RUN_INFO, STAGING, StageSummary, build_manifest, count_by,
                                           fingerprint, metric_counters, option_fingerprints, read_json, write_json)
from entailgen.transforms.report import write_report
from entailgen.transforms.shard import WriteDeadLetters, WriteShards, join_path, remove_runs
from entailgen.transforms.split import AssignSplit


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
        count_by(skipped, "skipped_by_source", lambda s: s.source),
        count_by(skipped, "skipped_by_reason", lambda s: f"{s.stage}:{s.reason}"),
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
    {
        "shards": branches | "Shards" >> WriteShards(config.shards, family.record_type),
        "dead_letters": dead | "DeadLetters" >> WriteDeadLetters(config.shards),
        "counts": counts,
        "stats": stats,
        "exports": exports,
    } | "Stage" >> StageSummary(config.output)


def job_pipeline(config: RunConfig, pipeline_args: list[str] = ()) -> beam.Pipeline:
    """The job wired into a pipeline whose options carry the runner's defaults (Dataflow: staging, GPU workers)."""
    options = PipelineOptions(dataflow_args(config.pipeline, pipeline_args, needs_gpu(config)), save_main_session=False)
    check_cloud_paths(config, options)
    p = beam.Pipeline(options=options)
    build_job(p, config)
    return p


def prepare_output(output: str, overwrite: bool) -> None:
    """Never mix two runs in one directory: a non-empty output is refused, or cleared first with overwrite."""
    existing = [m.path for r in FileSystems.match([join_path(output, "**")]) for m in r.metadata_list]
    if existing and not overwrite:
        raise FileExistsError(f"output directory is not empty: {output} (pass --overwrite to replace it)")
    if existing:
        FileSystems.delete([output])


def run_job(config: RunConfig, pipeline_args: list[str] = (), overwrite: bool = False) -> Optional[dict]:
    """Run the job to completion and write run.json then manifest.json; returns the manifest.

    With --dry_run=True the job is only translated (and for Dataflow staged): nothing runs or is written, None returns.
    """
    family = get_family(config.pipeline)
    p = job_pipeline(config, pipeline_args)
    if is_dry_run(p.options):
        dry_run(p)
        return None
    prepare_output(config.output, overwrite)
    inputs = [fingerprint(path) for path in config.inputs]
    option_files = option_fingerprints(option_paths(config))  # hashed before the run, like the inputs
    started = time.time()
    result = p.run()
    result.wait_until_finish()
    staged = read_json(config.output, STAGING)
    manifest = build_manifest(version=entailgen.__version__, pipeline=family.name,
                              record_type=family.record_type.__name__, config=config.manifest_config(),
                              inputs=inputs, staged=staged, metrics=metric_counters(result), option_files=option_files)
    write_json(config.output, RUN_INFO, {
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.time() - started, 3),
        "inputs": list(config.inputs),
        "output": config.output,
        "pipeline_args": list(pipeline_args),
        "runner": type(result).__name__,
        "host": platform.node(),
        "python": platform.python_version(),
        "beam": beam.__version__,
    })
    FileSystems.delete([join_path(config.output, STAGING)])
    remove_runs(config.output)
    write_report(config.output, manifest, description=family.summary)  # card + report.html; the manifest stays last
    write_json(config.output, MANIFEST, manifest)
    return manifest

