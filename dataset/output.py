"""The output policy: what is at an --output, which outputs a job refuses, and the names of entailgen's marks.

Nothing a user owns is ever deleted: a job writes only into an empty place, an entailgen dataset it may replace
(--overwrite), or its own interrupted build; everything else is refused in one line before anything is written.
"""
from __future__ import annotations

import json
import os
from typing import Optional, Sequence

from apache_beam.io.filesystems import FileSystems

from entailgen.dataset.manifest import MANIFEST, RUN_INFO
from entailgen.dataset.report import CARD, REPORT
from entailgen.dataset.shard import join_path

MARKER = ".entailgen-run"  # written first into every folder a run builds: entailgen's, even before its manifest exists
PARTIAL = ".entailgen-partial"  # suffix of the sibling folder a run builds in, swapped in once complete
OLD = ".entailgen-old"  # suffix of the replaced dataset between the swap's two renames
LOCK = ".entailgen-lock"  # suffix of the file beside output that its one writer holds locked (pid and host in it)
TRAIN_JSON = "train.json"  # what `entailgen train` writes into a model dir (training.trainer.TRAIN_JSON, without torch)


class OutputError(ValueError):
    """An output a job must not write (or not now): one line, said before anything is written."""


def sibling(output: str, suffix: str) -> str:
    """A hidden folder beside output: /data/out -> /data/.out<suffix> (local or gs://)."""
    parent, name = FileSystems.split(output.rstrip("/"))
    return FileSystems.join(parent, f".{name}{suffix}")


def files_under(folder: str) -> list[str]:
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
    names = {FileSystems.split(path)[1] for path in files_under(output)}
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


def unlistedfiles_under(dataset: str) -> list[str]:
    """Files in a dataset its manifest does not list (nor its run.json, card and report): not entailgen's to delete."""
    manifest = _json(join_path(dataset, MANIFEST))
    manifest = manifest if isinstance(manifest, dict) else {}
    listed = {MANIFEST, RUN_INFO, CARD, REPORT, MARKER}
    for entry in [*manifest.get("shards", []), manifest.get("dead_letters") or {}, *manifest.get("exports", [])]:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            listed.add(entry["path"])
    root = join_path(dataset, "-")[:-1]  # the prefix its files' paths start with: 'out/', 'gs://b/out/'
    relative = [path[len(root):].replace(os.sep, "/") for path in files_under(dataset)]
    return [path for path in relative if path not in listed]


def check_output(output: str, inputs: Sequence[str], overwrite: bool) -> None:
    """Refuse (OutputError) an output the run must not write: a file, a folder of someone else's files, a dataset
    without --overwrite or holding files its manifest does not list, a folder inside an entailgen dataset or model
    dir, or a folder holding one of the run's inputs."""
    state = output_state(output)
    if state == "file":
        raise OutputError(f"--output is a file, not a directory: {output}")
    check_not_inside_entailgen(output)
    inside = [path for path in inputs if _inside(path, output) or _inside(path, sibling(output, PARTIAL))]
    if inside and state != "missing":
        raise OutputError(f"input {inside[0]} is inside --output {output}; write the dataset somewhere else")
    if state == "foreign":
        raise OutputError(f"output directory is not empty and holds no entailgen dataset: {output} (entailgen only "
                          "replaces its own datasets; choose another --output)")
    if state in ("dataset", "interrupted") and not overwrite:
        what = "an entailgen dataset" if state == "dataset" else "an interrupted entailgen run"
        raise OutputError(f"output directory holds {what}: {output} (pass --overwrite to replace it)")
    unlisted = unlistedfiles_under(output) if state == "dataset" else []
    if unlisted:
        raise OutputError(f"--overwrite would delete {join_path(output, unlisted[0])}, which the manifest of {output} "
                          "does not list; move it out first (entailgen deletes only its own files)")
    partial = sibling(output, PARTIAL)
    if FileSystems.exists(partial) and not FileSystems.exists(join_path(partial, MARKER)):
        raise OutputError(f"{partial} is in the way of the build folder and is not entailgen's; move it")
