"""The one publish step: a job builds into a marked folder beside its output, writes its manifest last, and the
folder is swapped in only once complete (as Hugging Face datasets builds into `<dir>.incomplete` and renames).

Every command that writes (run, score, train, train-conv, refresh) publishes through `publish`; datasets finish with
`finish_dataset`, the only writer of a manifest.
"""
from __future__ import annotations

import os
import shutil
import sys
from contextlib import contextmanager
from typing import Optional, Sequence

from apache_beam.io.filesystems import FileSystems

import entailgen
from entailgen.dataset.lock import writer_lock
from entailgen.dataset.manifest import MANIFEST, RUN_INFO, STAGING, build_manifest, read_json, write_json
from entailgen.dataset.output import MARKER, OLD, PARTIAL, check_output, files_under, sibling
from entailgen.dataset.report import write_report
from entailgen.dataset.shard import join_path, remove_runs


def start_build(output: str, kind: str, recipe: Optional[dict] = None, start_over: Optional[str] = None) -> str:
    """The sibling folder the run builds in, marked as entailgen's (and as a `kind`) first; a leftover of an
    interrupted run is said and replaced, or, for a resumable build (a recipe), kept when it was building the same
    kind from the same recipe, unless its caller found nothing in it to go on from (start_over: the line that says
    so and what is discarded). Called with the writer lock held: no other writer is building it."""
    partial = sibling(output, PARTIAL)
    marker = {"entailgen_version": entailgen.__version__, "output": output, "kind": kind,
              **({"recipe": recipe} if recipe is not None else {})}
    if FileSystems.exists(partial):
        left = read_marker(partial)
        if recipe is not None and start_over is None and \
                {k: left.get(k) for k in ("kind", "recipe")} == {"kind": kind, "recipe": recipe}:
            print(f"entailgen: resuming the interrupted build of {output} (what it finished is kept)",
                  file=sys.stderr)
            return partial
        print(start_over or f"entailgen: a previous run into {output} was interrupted; starting over", file=sys.stderr)
        FileSystems.delete([partial])
    FileSystems.mkdirs(partial)
    write_json(partial, MARKER, marker)
    return partial


def read_marker(folder: str) -> dict:
    """A build folder's marker ({} when it is missing or unreadable)."""
    try:
        return read_json(folder, MARKER)
    except (OSError, ValueError):
        return {}


def swap_in(partial: str, output: str) -> None:
    """Make the complete dataset in `partial` the one at `output`, replacing the old one only now.

    Local: two renames (old dataset aside, new one in), then the old one is deleted; a reader sees the old dataset or
    the new one. gs:// and other object stores have no folder rename: the old manifest goes first (the old dataset
    then reads as incomplete), then its other files, then FileSystems.rename (copy + delete) moves the new files in
    with the manifest last; the best an object store allows, not atomic.
    """
    if "://" not in output:
        if os.path.isdir(output):
            old = sibling(output, OLD)
            if os.path.exists(old):
                shutil.rmtree(old)
            os.rename(output, old)
            os.rename(partial, output)
            shutil.rmtree(old)
        else:
            os.rename(partial, output)
        return
    old = files_under(output)
    manifest = [p for p in old if FileSystems.split(p)[1] == MANIFEST]
    if old:
        FileSystems.delete(manifest + [p for p in old if p not in manifest])
    new = files_under(partial)
    new.sort(key=lambda p: FileSystems.split(p)[1] == MANIFEST)  # the manifest last
    FileSystems.rename(new, [join_path(output, p[len(partial.rstrip("/")) + 1:]) for p in new])
    remaining = files_under(partial)
    if remaining:
        FileSystems.delete(remaining)


@contextmanager
def publish(output: str, kind: str, *, inputs: Sequence[str] = (), overwrite: bool = False,
            recipe: Optional[dict] = None, start_over: Optional[str] = None):
    """The marked sibling folder a job writing a `kind` ('dae dataset', 'scores dataset', 'model dir', 'Conv head')
    builds in, swapped in for output once the block completes; on any failure (or KeyboardInterrupt: the CLI turns
    Ctrl-C and SIGTERM into one) it is deleted and what was at output stays as it was. The writer lock is held
    throughout, and the output policy (output.check_output: --overwrite replaces only an output of the same kind) is
    checked once it is held, as another writer may have finished meanwhile. A resumable build (a recipe: what it is
    built from) keeps its folder on failure, and a later build of the same recipe goes on in it (start_over: unless
    its caller found nothing there to go on from; start_build)."""
    with writer_lock(output):
        check_output(output, kind, inputs, overwrite)
        partial = start_build(output, kind, recipe, start_over)
        try:
            yield partial
        except BaseException:
            if recipe is None and FileSystems.exists(partial):
                FileSystems.delete([partial])  # ours alone: the old dataset at output was not touched
            raise
        swap_in(partial, output)  # the marker goes along: a swap cut short on gs:// leaves an output said interrupted
        FileSystems.delete([join_path(output, MARKER)])


def finish_dataset(folder: str, *, run_info: Optional[dict] = None, description: Optional[str] = None,
                   **manifest_fields) -> dict:
    """A finished job's staged summary in `folder` made its manifest: run.json beside it, the staging file and the
    shard writers' spill runs gone, the card and report.html (with a family's description), the manifest last."""
    manifest = build_manifest(version=entailgen.__version__, staged=read_json(folder, STAGING), **manifest_fields)
    if run_info is not None:
        write_json(folder, RUN_INFO, run_info)
    FileSystems.delete([join_path(folder, STAGING)])
    remove_runs(folder)
    if description is not None:
        write_report(folder, manifest, description=description)
    write_json(folder, MANIFEST, manifest)
    return manifest
