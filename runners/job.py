"""Run one family end to end: read -> family build -> split -> shard -> manifest (written last, by the driver)."""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import platform
import shutil
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable, Optional, Sequence

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions, StandardOptions

import entailgen
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.runners.beam_flags import DASK, runner_args
from entailgen.runners.dataflow import check_cloud_paths, dataflow_args, dry_run, is_dry_run, needs_gpu
from entailgen.runners.progress import Progress
from entailgen.transforms.accounting import CountUnits
from entailgen.transforms.branches import CombineBranches, EachBranch
from entailgen.transforms.io import ReadInputs
from entailgen.transforms.io.paths import option_paths
from entailgen.transforms.manifest import (MANIFEST, RUN_INFO, STAGING, StageSummary, build_manifest, count_by,
                                           fingerprint, metric_counters, option_fingerprints, read_json, write_json)
from entailgen.transforms.report import CARD, REPORT, write_report
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
        (*branches, dead, skipped) | "CountUnits" >> CountUnits(  # units: with output, skipped or dead
            FileSystems.split(path)[1] for path in config.inputs),
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


MARKER = ".entailgen-run"  # written first into every folder a run builds: entailgen's, even before its manifest exists
PARTIAL = ".entailgen-partial"  # suffix of the sibling folder a run builds in, swapped in once complete
OLD = ".entailgen-old"  # suffix of the replaced dataset between the swap's two renames
LOCK = ".entailgen-lock"  # suffix of the file beside output that its one writer holds locked (pid and host in it)
TRAIN_JSON = "train.json"  # what `entailgen train` writes into a model dir (training.trainer.TRAIN_JSON, without torch)


class OutputError(ValueError):
    """An output a job must not write (or not now): one line, said before anything is written."""


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


def job_pipeline(config: RunConfig, pipeline_args: list[str] = (), live: Optional[dict] = None) -> beam.Pipeline:
    """The job wired into a pipeline whose options carry the runner's defaults (Dataflow: staging, GPU workers); a
    local job runs on the FnApiRunner directly, its counters collected into `live` as bundles finish."""
    options = PipelineOptions(dataflow_args(config.pipeline, runner_args(pipeline_args), needs_gpu(config)),
                              save_main_session=False)
    check_cloud_paths(config, options)
    runner = direct_runner(options, {} if live is None else live) if is_direct(options) else None
    p = beam.Pipeline(runner=runner, options=options)
    build_job(p, config)
    return p


def absolute_paths(config: RunConfig, pipeline_args: Sequence[str]) -> RunConfig:
    """Local inputs and output made absolute for a runner whose workers need not share this process's working
    directory (a Dask cluster started elsewhere); as given for the DirectRunner."""
    if is_direct(PipelineOptions(list(pipeline_args))):
        return config
    absolute = lambda path: path if "://" in path else os.path.abspath(path)  # noqa: E731
    return dataclasses.replace(config, inputs=tuple(map(absolute, config.inputs)), output=absolute(config.output))


def _sibling(output: str, suffix: str) -> str:
    """A hidden folder beside output: /data/out -> /data/.out<suffix> (local or gs://)."""
    parent, name = FileSystems.split(output.rstrip("/"))
    return FileSystems.join(parent, f".{name}{suffix}")


def _files(folder: str) -> list[str]:
    """Every file under folder (local or object store), sorted."""
    return sorted(m.path for r in FileSystems.match([join_path(folder, "**")]) for m in r.metadata_list)


def _is_file(path: str) -> bool:
    if "://" not in path:
        return os.path.isfile(path)
    return any(m.path == path for r in FileSystems.match([path]) for m in r.metadata_list)


def _inside(path: str, folder: str) -> bool:
    if "://" not in path and "://" not in folder:
        path, folder = os.path.realpath(path), os.path.realpath(folder)
        return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
    return path.startswith(folder.rstrip("/") + "/")


def output_state(output: str) -> str:
    """What is at --output: 'missing', 'empty', 'file', 'dataset' (has manifest.json), 'interrupted' (entailgen's
    marker, no manifest) or 'foreign' (anything else: a user's files, never deleted)."""
    if _is_file(output):
        return "file"
    if not FileSystems.exists(output):
        return "missing"
    names = {FileSystems.split(path)[1] for path in _files(output)}
    if not names:
        return "empty"
    if FileSystems.exists(join_path(output, MANIFEST)):
        return "dataset"
    return "interrupted" if FileSystems.exists(join_path(output, MARKER)) else "foreign"


def _json(path: str):
    """A small JSON file's content, or None when it is missing or not JSON."""
    try:
        with FileSystems.open(path) as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def entailgen_folder(folder: str) -> Optional[str]:
    """What entailgen wrote `folder` as: 'dataset' (its manifest.json), 'build folder' (the run marker) or
    'model dir' (train.json); None for anything else (a manifest.json of another tool included)."""
    if FileSystems.exists(join_path(folder, MARKER)):
        return "build folder"
    manifest = _json(join_path(folder, MANIFEST)) if FileSystems.exists(join_path(folder, MANIFEST)) else None
    if isinstance(manifest, dict) and {"record_type", "shards"} <= manifest.keys():
        return "dataset"
    trained = _json(join_path(folder, TRAIN_JSON)) if FileSystems.exists(join_path(folder, TRAIN_JSON)) else None
    return "model dir" if isinstance(trained, dict) and "dataset_manifest_sha256" in trained else None


def check_not_inside_entailgen(output: str) -> None:
    """Refuse (OutputError) an output inside an entailgen dataset or model dir: replacing that one later (run
    --overwrite, train --overwrite) would delete what was written into it."""
    if "://" not in output:
        output = os.path.abspath(output)
    folder = output.rstrip("/")
    while True:
        parent = FileSystems.split(folder)[0].rstrip("/") or "/"
        if parent == folder:  # the root: '/' or 'gs://bucket'
            return
        folder = parent
        kind = entailgen_folder(folder)
        if kind:
            raise OutputError(f"--output {output} is inside the entailgen {kind} {folder}; write it somewhere else")


def unlisted_files(dataset: str) -> list[str]:
    """Files in a dataset its manifest does not list (nor its run.json, card and report): not entailgen's to delete."""
    manifest = _json(join_path(dataset, MANIFEST))
    manifest = manifest if isinstance(manifest, dict) else {}
    listed = {MANIFEST, RUN_INFO, CARD, REPORT, MARKER}
    for entry in [*manifest.get("shards", []), manifest.get("dead_letters") or {}, *manifest.get("exports", [])]:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            listed.add(entry["path"])
    root = join_path(dataset, "-")[:-1]  # the prefix its files' paths start with: 'out/', 'gs://b/out/'
    relative = [path[len(root):].replace(os.sep, "/") for path in _files(dataset)]
    return [path for path in relative if path not in listed]


def check_output(output: str, inputs: Sequence[str], overwrite: bool) -> None:
    """Refuse (OutputError) an output the run must not write: a file, a folder of someone else's files, a dataset
    without --overwrite or holding files its manifest does not list, a folder inside an entailgen dataset or model
    dir, or a folder holding one of the run's inputs."""
    state = output_state(output)
    if state == "file":
        raise OutputError(f"--output is a file, not a directory: {output}")
    check_not_inside_entailgen(output)
    inside = [path for path in inputs if _inside(path, output) or _inside(path, _sibling(output, PARTIAL))]
    if inside and state != "missing":
        raise OutputError(f"input {inside[0]} is inside --output {output}; write the dataset somewhere else")
    if state == "foreign":
        raise OutputError(f"output directory is not empty and holds no entailgen dataset: {output} (entailgen only "
                          "replaces its own datasets; choose another --output)")
    if state in ("dataset", "interrupted") and not overwrite:
        what = "an entailgen dataset" if state == "dataset" else "an interrupted entailgen run"
        raise OutputError(f"output directory holds {what}: {output} (pass --overwrite to replace it)")
    unlisted = unlisted_files(output) if state == "dataset" else []
    if unlisted:
        raise OutputError(f"--overwrite would delete {join_path(output, unlisted[0])}, which the manifest of {output} "
                          "does not list; move it out first (entailgen deletes only its own files)")
    partial = _sibling(output, PARTIAL)
    if FileSystems.exists(partial) and not FileSystems.exists(join_path(partial, MARKER)):
        raise OutputError(f"{partial} is in the way of the build folder and is not entailgen's; move it")


def check_runner(options: PipelineOptions) -> None:
    """An unknown --runner is a ValueError naming it, not Beam's traceback."""
    from apache_beam.runners.runner import create_runner

    runner = options.view_as(StandardOptions).runner
    if isinstance(runner, str) and not is_direct(options):
        try:
            create_runner(runner)
        except (ValueError, ImportError) as e:
            raise ValueError(f"unknown --runner {runner}" + (f" ({e})" if isinstance(e, ImportError) else ""))


def check_job(config: RunConfig, pipeline_args: list[str] = (), overwrite: bool = False) -> None:
    """Everything about a run that can be checked before it starts, as a ValueError with one line: the runner and its
    flags, Dataflow's paths, and the output."""
    options = PipelineOptions(dataflow_args(config.pipeline, runner_args(pipeline_args), needs_gpu(config)))
    check_runner(options)
    check_cloud_paths(config, options)
    if not is_dry_run(options):
        check_output(config.output, config.inputs, overwrite)


def _holder(fd: int) -> str:
    """Who holds a lock file, from what it wrote into it: 'pid 123 on host h'."""
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        held = json.loads(os.read(fd, 4096).decode("utf-8"))
        return f"pid {held['pid']} on host {held['host']}"
    except (ValueError, KeyError, TypeError):
        return "a process that has not said its pid yet"


@contextmanager
def writer_lock(output: str):
    """Make this process the one writer of output: an exclusive lock (flock) on a file beside it, holding this pid
    and host. A second writer is refused (OutputError naming the first) rather than deleting the first's build
    folder; the kernel frees the lock of a killed writer, so a dead writer's lock is taken over without a word.
    On gs:// the lock is a marker object created only if absent (generation precondition 0); other object stores
    have none."""
    if output.startswith("gs://"):
        with _marker_object_lock(output):
            yield
        return
    if "://" in output:
        yield
        return
    path = _sibling(output, LOCK)
    while True:
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:  # a read-only or full place: said of --output, not of this hidden file
            raise type(e)(e.errno, e.strerror, output) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise OutputError(f"another entailgen ({holder}) is writing {output}; wait for it to finish or "
                              "choose another --output") from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                break  # still the file at path: the last writer did not remove it between our open and lock
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        os.ftruncate(fd, 0)  # a killed writer's pid may still be in it
        os.write(fd, json.dumps({"pid": os.getpid(), "host": platform.node()}).encode("utf-8"))
        yield
    finally:
        os.remove(path)  # before the lock goes: a writer that opened this file meanwhile finds it gone, starts over
        os.close(fd)


def _gcs_bucket(name: str):
    """A google-cloud-storage bucket handle (apache-beam[gcp] brings the client); tests replace this."""
    from google.cloud import storage

    return storage.Client().bucket(name)


@contextmanager
def _marker_object_lock(output: str):
    """gs://'s writer lock: `.OUT.entailgen-lock` is created only if no object has that name (if_generation_match=0,
    which GCS checks atomically), and deleted at the end only if it is still ours. Nothing frees the marker of a
    killed run: the refusal names it, for the user to delete once that run is known dead."""
    from google.api_core.exceptions import NotFound, PreconditionFailed

    path = _sibling(output, LOCK)
    bucket, _, name = path[len("gs://"):].partition("/")
    blob = _gcs_bucket(bucket).blob(name)
    holder = {"pid": os.getpid(), "host": platform.node(),
              "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    try:
        blob.upload_from_string(json.dumps(holder), content_type="application/json", if_generation_match=0)
    except PreconditionFailed:
        try:
            held = json.loads(blob.download_as_text())
            who = f"pid {held['pid']} on host {held['host']}, since {held['started']}"
        except (NotFound, ValueError, KeyError, TypeError):
            who = "a writer that left no pid"
        raise OutputError(f"another entailgen ({who}) is writing {output}; wait for it to finish, or delete {path} "
                          "if that run is dead") from None
    try:
        yield
    finally:
        try:
            blob.delete(if_generation_match=blob.generation)
        except (NotFound, PreconditionFailed):
            pass  # removed by hand, or replaced by a writer the user let in: not ours to delete


def start_build(output: str) -> str:
    """The empty sibling folder the run builds in, marked as entailgen's first; a leftover of an interrupted run is
    said and replaced (called with the writer lock held: no other writer is building it)."""
    partial = _sibling(output, PARTIAL)
    if FileSystems.exists(partial):
        print(f"entailgen: a previous run into {output} was interrupted; starting over", file=sys.stderr)
        FileSystems.delete([partial])
    FileSystems.mkdirs(partial)
    write_json(partial, MARKER, {"entailgen_version": entailgen.__version__, "output": output})
    return partial


def swap_in(partial: str, output: str) -> None:
    """Make the complete dataset in `partial` the one at `output`, replacing the old one only now.

    Local: two renames (old dataset aside, new one in), then the old one is deleted; a reader sees the old dataset or
    the new one. gs:// and other object stores have no folder rename: the old manifest goes first (the old dataset
    then reads as incomplete), then its other files, then FileSystems.rename (copy + delete) moves the new files in
    with the manifest last; the best an object store allows, not atomic.
    """
    if "://" not in output:
        if os.path.isdir(output):
            old = _sibling(output, OLD)
            if os.path.exists(old):
                shutil.rmtree(old)
            os.rename(output, old)
            os.rename(partial, output)
            shutil.rmtree(old)
        else:
            os.rename(partial, output)
        return
    old = _files(output)
    manifest = [p for p in old if FileSystems.split(p)[1] == MANIFEST]
    if old:
        FileSystems.delete(manifest + [p for p in old if p not in manifest])
    new = _files(partial)
    new.sort(key=lambda p: FileSystems.split(p)[1] == MANIFEST)  # the manifest last
    FileSystems.rename(new, [join_path(output, p[len(partial.rstrip("/")) + 1:]) for p in new])
    remaining = _files(partial)
    if remaining:
        FileSystems.delete(remaining)


@contextmanager
def built_then_swapped(output: str, check: Optional[Callable[[], None]] = None):
    """The marked sibling folder a job writes into, swapped in for output once the block completes; on any failure
    (or Ctrl-C, or SIGTERM) it is deleted and what was at output stays as it was. The writer lock is held
    throughout; `check` (the output checks) runs once it is held, as another writer may have finished meanwhile."""
    with writer_lock(output), interruptible():
        if check is not None:
            check()
        partial = start_build(output)
        try:
            yield partial
        except BaseException:
            if FileSystems.exists(partial):
                FileSystems.delete([partial])  # ours alone: the old dataset at output was not touched
            raise
        swap_in(partial, output)  # the marker goes along: a swap cut short on gs:// leaves an output said interrupted
        FileSystems.delete([join_path(output, MARKER)])


@contextmanager
def private_tempdir():
    """Point Python's and the workers' temp folder at a folder of this run's own, removed afterwards: Beam leaves
    folders in /tmp (staging, worker environments) that nothing else removes."""
    folder = tempfile.mkdtemp(prefix="entailgen-")
    saved, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = folder, folder
    try:
        yield folder
    finally:
        tempfile.tempdir = saved
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def interruptible():
    """Ctrl-C (or SIGTERM) during a run surfaces as KeyboardInterrupt, however Beam wraps it ('RuntimeError:
    KeyboardInterrupt [while running ...]'), so the caller cleans up and says one line."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit = []

    def stop(signum, frame):
        if not hit:  # the job is over: Beam's log of the interrupted bundle (and of dying workers) is not news
            logging.getLogger("apache_beam").setLevel(logging.CRITICAL + 1)
        hit.append(signum)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    thread_hook = threading.excepthook  # Beam's worker threads report the workers' deaths after a Ctrl-C: not news
    threading.excepthook = lambda args: None if hit else thread_hook(args)
    try:
        yield
    except KeyboardInterrupt:
        hit.append(None)  # here or in a nested interruptible(): the threads' deaths still to come are not news
        raise
    except Exception:
        if hit:
            raise KeyboardInterrupt from None
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if not hit:  # after a Ctrl-C the workers' threads die later still
            threading.excepthook = thread_hook


def run_job(config: RunConfig, pipeline_args: list[str] = (), overwrite: bool = False,
            progress_every: Optional[float] = None) -> Optional[dict]:
    """Run the job to completion and write run.json then manifest.json; returns the manifest.

    The job builds in a sibling folder marked as entailgen's and is swapped in only once complete, so a failed or
    interrupted run leaves what was at --output as it was (and its own folder removed, or marked for the next run).
    With --dry_run=True the job is only translated (and for Dataflow staged): nothing runs or is written, None returns.
    With progress_every (seconds), counters and elapsed time go to stderr while it runs.
    """
    family = get_family(config.pipeline)
    check_job(config, pipeline_args, overwrite)
    config = absolute_paths(config, pipeline_args)
    building = dataclasses.replace(config, output=_sibling(config.output, PARTIAL))
    live: dict = {}
    p = job_pipeline(building, pipeline_args, live)
    if is_dry_run(p.options):
        dry_run(p)
        return None
    inputs = [fingerprint(path) for path in config.inputs]
    option_files = option_fingerprints(option_paths(config))  # hashed before the run, like the inputs
    started = time.time()
    with built_then_swapped(config.output, check=lambda: check_output(config.output, config.inputs, overwrite)):
        with private_tempdir(), interruptible(), (
                Progress(live, every=progress_every) if progress_every else contextlib.nullcontext()):
            result = p.run()
            result.wait_until_finish()
        staged = read_json(building.output, STAGING)
        manifest = build_manifest(version=entailgen.__version__, pipeline=family.name,
                                  record_type=family.record_type.__name__, config=config.manifest_config(),
                                  inputs=inputs, staged=staged, metrics=metric_counters(result),
                                  option_files=option_files)
        write_json(building.output, RUN_INFO, {
            "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(time.time() - started, 3),
            "inputs": list(config.inputs),
            "output": config.output,
            "pipeline_args": list(pipeline_args),
            "runner": runner_name(p.options),
            "host": platform.node(),
            "python": platform.python_version(),
            "beam": beam.__version__,
        })
        FileSystems.delete([join_path(building.output, STAGING)])
        remove_runs(building.output)
        write_report(building.output, manifest, description=family.summary)  # card + report.html; manifest last
        write_json(building.output, MANIFEST, manifest)
    return manifest
