"""Google Cloud Dataflow: the flags a job needs there (staging, GPU workers), added without overriding the user's.

`entailgen run PIPELINE --runner DataflowRunner --project P --region R --temp_location gs://B/tmp --output gs://B/out`
stages this package through its setup.py; a family that generates on GPU gets one NVIDIA L4 per worker with the driver
installed, a G2 machine, and one SDK process per worker so the model is loaded once per GPU (RunInference shares it
across the process's threads). `--dry_run=True` translates and stages the job graph but submits nothing.

The ct2 generator (CTranslate2 4.8.5) on GPU needs the CUDA 12 cuBLAS runtime (libcublas.so.12) on the worker; the
driver alone is not enough. runners/dataflow-gpu.Dockerfile builds an image with it (and torch, spaCy's model and
entailgen) for --sdk_container_image; docs/running-at-scale.md has its build and push. Pass --compute-type int8 to run
ct2 on CPU workers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from apache_beam.options.pipeline_options import (DebugOptions, GoogleCloudOptions, PipelineOptions, SetupOptions,
                                                  StandardOptions, TestOptions, WorkerOptions)

import entailgen
from entailgen.pipelines import get_family

SETUP_FILE = Path(entailgen.__file__).parent / "setup.py"
GPU_ACCELERATOR = "worker_accelerator=type:nvidia-l4;count:1;install-nvidia-driver"
GPU_MACHINE_TYPE = "g2-standard-8"
ONE_SDK_PROCESS = "no_use_multiple_sdk_containers"


def _options(args: Sequence[str]) -> PipelineOptions:
    return PipelineOptions(list(args))


def is_dataflow(options: PipelineOptions) -> bool:
    """Whether the options name the Dataflow runner (DataflowRunner, dataflow, ... as Beam accepts it)."""
    runner = options.view_as(StandardOptions).runner
    return isinstance(runner, str) and runner.lower().removesuffix("runner") == "dataflow"


def is_dry_run(options: PipelineOptions) -> bool:
    """Beam's --dry_run, read as the Dataflow runner reads it (any non-empty value: even 'False' is a dry run there)."""
    return bool(options.view_as(TestOptions).dry_run)


def needs_gpu(config) -> bool:
    """Whether this run generates on GPU (a family's `gpu(options)`, e.g. dae with the hf or ct2 generator)."""
    return bool(get_family(config.pipeline).gpu(config.family))


def _staged(options: PipelineOptions) -> bool:
    """Whether the user already ships the code some other way (own setup.py, packages or a prebuilt container)."""
    setup, worker = options.view_as(SetupOptions), options.view_as(WorkerOptions)
    return bool(setup.setup_file or setup.extra_packages or worker.sdk_container_image)


def dataflow_args(pipeline_name: str, user_args: Sequence[str], gpu: bool,
                  setup_file: Optional[Path] = SETUP_FILE) -> list[str]:
    """The user's Beam flags plus Dataflow defaults (staging, GPU workers) for the flags they left unset.

    Other runners' flags come back unchanged. Raises ValueError for a Dataflow job that could not work: no gs://
    temp or staging location (Beam would try to create a bucket), or no way to ship this package to the workers.
    """
    args, options = list(user_args), _options(user_args)
    if not is_dataflow(options):
        return args
    cloud = options.view_as(GoogleCloudOptions)
    if not any((location or "").startswith("gs://") for location in (cloud.temp_location, cloud.staging_location)):
        raise ValueError(f"DataflowRunner needs --temp_location gs://BUCKET/tmp for the {pipeline_name} job")
    if not _staged(options):
        if setup_file is None or not Path(setup_file).is_file():
            raise ValueError("DataflowRunner: no setup.py beside this installation to stage it; pass --setup_file, "
                             "--extra_package or --sdk_container_image")
        args.append(f"--setup_file={setup_file}")
    if gpu:
        if not any(o.startswith("worker_accelerator=") for o in cloud.dataflow_service_options or ()):
            args.append(f"--dataflow_service_options={GPU_ACCELERATOR}")
        if options.view_as(WorkerOptions).machine_type is None:
            args.append(f"--machine_type={GPU_MACHINE_TYPE}")
        if ONE_SDK_PROCESS not in (options.view_as(DebugOptions).experiments or ()):
            args.append(f"--experiments={ONE_SDK_PROCESS}")
    return args


def check_cloud_paths(config, options: PipelineOptions) -> None:
    """Dataflow workers cannot see this machine's disk: a real job's inputs and output must be gs:// (or another
    remote filesystem); raises ValueError naming the local ones. A dry run reads and writes nothing, so passes."""
    if not is_dataflow(options) or is_dry_run(options):
        return
    local = [path for path in (*config.inputs, config.output) if "://" not in path]
    if local:
        raise ValueError(f"DataflowRunner workers cannot reach local paths: {', '.join(local)}; copy them to gs://")


def dry_run(pipeline):
    """Translate a built pipeline without running it: for Dataflow its staged, unsubmitted job (.proto_pipeline and
    .options are what the service would receive), for other runners the portable pipeline proto."""
    if is_dataflow(pipeline.options):
        return pipeline.run().job
    return pipeline.to_runner_api()
