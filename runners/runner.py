"""Which Beam runner runs a job, with what options: the local FnApiRunner that counts as it goes, Dataflow's
defaults, or a runner named by --runner."""
from __future__ import annotations

import dataclasses
import os
from typing import Optional, Sequence

import apache_beam as beam
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

from entailgen.pipelines.base import RunConfig
from entailgen.pipelines.graph import build_job
from entailgen.runners.beam_flags import DASK, runner_args
from entailgen.runners.dataflow import check_cloud_paths, dataflow_args, needs_gpu


def is_direct(options: PipelineOptions) -> bool:
    """Whether the options name the (switching) DirectRunner, or no runner at all (Beam's default is the DirectRunner)."""
    runner = options.view_as(StandardOptions).runner
    return runner is None or (isinstance(runner, str) and runner.lower().removesuffix("runner") == "direct")


def runner_name(options: PipelineOptions) -> str:
    """The runner as run.json records it: 'DirectRunner (in_memory, 1 worker)', 'DataflowRunner', ..."""
    if is_direct(options):
        direct = options.view_as(DirectOptions)
        workers = direct.direct_num_workers or os.cpu_count()
        return f"DirectRunner ({direct.direct_running_mode}, {workers} worker{'s' if workers != 1 else ''})"
    runner = options.view_as(StandardOptions).runner
    if runner == DASK:
        address = options.get_all_options().get("address")
        return f"DaskRunner (entailgen, {f'scheduler {address}' if address else 'a local cluster'})"
    return runner if isinstance(runner, str) else type(runner).__name__


def direct_runner(options: PipelineOptions, live: dict):
    """The FnApiRunner the DirectRunner would pick for a batch job, chosen here: the DirectRunner first tries Prism,
    which downloads a binary from GitHub at run time (no network here: it fails, after leaving three folders in /tmp),
    and its FnApiRunner reports counters only at the end; this one counts bundle by bundle into `live`."""
    from apache_beam.portability.api import beam_provision_api_pb2
    from apache_beam.runners.portability.fn_api_runner.fn_runner import ExtendedProvisionInfo
    from apache_beam.runners.portability.portable_runner import JobServiceHandle

    from entailgen.runners.progress import CountingFnApiRunner

    encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
    return CountingFnApiRunner(live, provision_info=ExtendedProvisionInfo(
        beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded)))


def job_options(config: RunConfig, pipeline_args: Sequence[str] = ()) -> PipelineOptions:
    """The job's options, made once: the Beam flags as entailgen runs them (runner_args) with the runner's defaults
    (Dataflow: staging, GPU workers), its cloud paths checked (ValueError, one line)."""
    options = PipelineOptions(dataflow_args(config.pipeline, runner_args(list(pipeline_args)), needs_gpu(config)),
                              save_main_session=False)
    check_cloud_paths(config, options)
    return options


def job_pipeline(config: RunConfig, options: PipelineOptions, live: Optional[dict] = None) -> beam.Pipeline:
    """The job wired into a pipeline with its options (job_options); a local job runs on the FnApiRunner directly,
    its counters collected into `live` as bundles finish."""
    runner = direct_runner(options, {} if live is None else live) if is_direct(options) else None
    p = beam.Pipeline(runner=runner, options=options)
    build_job(p, config)
    return p


def absolute_paths(config: RunConfig, options: PipelineOptions) -> RunConfig:
    """Local inputs and output made absolute for a runner whose workers need not share this process's working
    directory (a Dask cluster started elsewhere); as given for the DirectRunner."""
    if is_direct(options):
        return config
    absolute = lambda path: path if "://" in path else os.path.abspath(path)  # noqa: E731
    return dataclasses.replace(config, inputs=tuple(map(absolute, config.inputs)), output=absolute(config.output))


def check_runner(options: PipelineOptions) -> None:
    """An unknown --runner is a ValueError naming it, not Beam's traceback."""
    from apache_beam.runners.runner import create_runner  # Beam's runner registry: only when a runner is named

    runner = options.view_as(StandardOptions).runner
    if isinstance(runner, str) and not is_direct(options):
        try:
            create_runner(runner)
        except (ValueError, ImportError) as e:
            raise ValueError(f"unknown --runner {runner}" + (f" ({e})" if isinstance(e, ImportError) else ""))
