"""`entailgen run`: a family's job checked (runner, flags, paths, output), run, and published as a dataset."""
from __future__ import annotations

import contextlib
import dataclasses
import platform
import time
from datetime import datetime, timezone
from typing import Optional

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from entailgen.dataset.manifest import fingerprint, metric_counters, option_fingerprints
from entailgen.dataset.output import PARTIAL, check_output, dataset_kind, sibling
from entailgen.dataset.publish import finish_dataset, publish
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.runners.dataflow import dry_run, is_dry_run
from entailgen.runners.progress import Progress
from entailgen.runners.runner import absolute_paths, check_runner, job_options, job_pipeline, runner_name
from entailgen.runners.signals import interruptible, private_tempdir
from entailgen.transforms.io.paths import option_paths


def check_job(config: RunConfig, pipeline_args: list[str] = (), overwrite: bool = False) -> PipelineOptions:
    """Everything about a run that can be checked before it starts, as a ValueError with one line: the runner and its
    flags, Dataflow's paths, and the output; returns the job's options."""
    options = job_options(config, pipeline_args)
    check_runner(options)
    if not is_dry_run(options):
        check_output(config.output, dataset_kind(config.pipeline), config.inputs, overwrite)
    return options


def run_job(config: RunConfig, pipeline_args: list[str] = (), overwrite: bool = False,
            progress_every: Optional[float] = None) -> Optional[dict]:
    """Run the job to completion and write run.json then manifest.json; returns the manifest.

    The job builds in a sibling folder marked as entailgen's and is swapped in only once complete, so a failed or
    interrupted run leaves what was at --output as it was (and its own folder removed, or marked for the next run).
    With --dry_run=True the job is only translated (and for Dataflow staged): nothing runs or is written, None returns.
    With progress_every (seconds), counters and elapsed time go to stderr while it runs.
    """
    family = get_family(config.pipeline)
    options = check_job(config, pipeline_args, overwrite)
    config = absolute_paths(config, options)
    building = dataclasses.replace(config, output=sibling(config.output, PARTIAL))
    live: dict = {}
    p = job_pipeline(building, options, live)
    if is_dry_run(p.options):
        dry_run(p)
        return None
    inputs = [fingerprint(path) for path in config.inputs]
    option_files = option_fingerprints(option_paths(config))  # hashed before the run, like the inputs
    started = time.time()
    with publish(config.output, dataset_kind(family.name), inputs=config.inputs, overwrite=overwrite) as folder:
        with private_tempdir(), interruptible(), (
                Progress(live, every=progress_every) if progress_every else contextlib.nullcontext()):
            result = p.run()
            result.wait_until_finish()
        run_info = {
            "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(time.time() - started, 3),
            "inputs": list(config.inputs),
            "output": config.output,
            "pipeline_args": list(pipeline_args),
            "runner": runner_name(p.options),
            "host": platform.node(),
            "python": platform.python_version(),
            "beam": beam.__version__,
        }
        return finish_dataset(folder, pipeline=family.name, record_type=family.record_type.__name__,
                              config=config.manifest_config(), inputs=inputs, metrics=metric_counters(result),
                              option_files=option_files, run_info=run_info, description=family.summary)
