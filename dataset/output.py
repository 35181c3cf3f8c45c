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
from entailgen.dataset.report.explain_page import EXPLAIN_PAGE
from entailgen.dataset.shard import join_path
from entailgen.schemas.files import DETECTOR_JSON

MARKER = ".entailgen-run"  # written first into every folder a run builds: entailgen's, even before its manifest exists
PARTIAL = ".entailgen-partial"  # suffix of the sibling folder a run builds in, swapped in once complete
OLD = ".entailgen-old"  # suffix of the replaced dataset between the swap's two renames
LOCK = ".entailgen-lock"  # suffix of the file beside output that its one writer holds locked (pid and host in it)
TRAIN_JSON = "train.json"  # what `entailgen train` writes into a model dir (fitting.trainer.TRAIN_JSON, without torch)
CONV_JSON = "conv.json"  # what `entailgen train-conv` writes into a Conv head's dir (scoring.summac.CONV_CONFIG)
CHECKSUMS_JSON = "checksums.json"  # a model dir's list of its model files (training.fitting.checkpoint.CHECKSUMS)
OLD_MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")  # before checksums
CONV_FILES = (CONV_JSON, "conv.safetensors")  # a Conv head's files (training.scoring.summac.CONV_CONFIG, CONV_WEIGHTS)
BUILD_FOLDER, MODEL_DIR, CONV_HEAD = "build folder", "model dir", "Conv head"  # kinds of output (and dataset_kind)
DETECTOR = "detector dir"  # `entailgen detector`'s output: its stages are built inside its own build folder


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


def _json(path: str):
    """A small JSON file's content, or None when it is missing or not JSON."""
    try:
        with FileSystems.open(path) as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def dataset_kind(pipeline: str) -> str:
    """The kind of output a pipeline's job writes: 'dae dataset', ..., 'scores dataset' (`entailgen score`)."""
    return "scores dataset" if pipeline == "score" else f"{pipeline} dataset"


def entailgen_folder(folder: str) -> Optional[str]:
    """What entailgen wrote `folder` as: 'build folder' (the run marker), a dataset of its kind ('dae dataset',
    'scores dataset': its manifest.json), 'model dir' (train.json), 'Conv head' (conv.json) or 'detector dir'
    (detector.json); None for anything else (a manifest.json of another tool included)."""
    if FileSystems.exists(join_path(folder, MARKER)):
        return BUILD_FOLDER
    if "members" in _mark(folder, DETECTOR_JSON):
        return DETECTOR
    manifest = _mark(folder, MANIFEST)
    if {"record_type", "shards"} <= manifest.keys():
        return dataset_kind(str(manifest.get("pipeline")))
    if "dataset_manifest_sha256" in _mark(folder, TRAIN_JSON):
        return MODEL_DIR
    return CONV_HEAD if "model_checksums" in _mark(folder, CONV_JSON) else None


def _mark(folder: str, name: str) -> dict:
    """The JSON object entailgen writes as `name` into what it makes ({} when absent, not JSON or not an object)."""
    found = _json(join_path(folder, name)) if FileSystems.exists(join_path(folder, name)) else None
    return found if isinstance(found, dict) else {}


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
        if kind == BUILD_FOLDER and (_json(join_path(folder, MARKER)) or {}).get("kind") == DETECTOR:
            return  # a detector's stages, built inside its build folder and swapped in with it
        if kind:
            raise OutputError(f"--output {output} is inside the entailgen {kind} {folder}; write it somewhere else")


def own_files(folder: str, kind: str) -> set[str]:
    """The files (relative paths) entailgen wrote into an output of a `kind`, by what that output lists: a dataset's
    manifest (and its run.json, card and report; a scored documents dataset's explain.html), a model dir's
    checksums.json (and its train.json and card), a Conv head's two files, a detector dir's detector.json. Nothing
    else under it is entailgen's to delete: a model's eval/ reports are the old model's results, kept as a user's
    file is."""
    if kind.endswith(" dataset"):
        manifest = _mark(folder, MANIFEST)
        listed = {MANIFEST, RUN_INFO, CARD, REPORT}
        if manifest.get("record_type") == "ScoredDocument":  # score --explain --html: its page, after the manifest
            listed.add(EXPLAIN_PAGE)
        entries = [*manifest.get("shards", []), manifest.get("dead_letters") or {}, *manifest.get("exports", [])]
        listed.update(e["path"] for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str))
    elif kind == MODEL_DIR:
        checksums = _mark(folder, CHECKSUMS_JSON)
        listed = {CHECKSUMS_JSON, TRAIN_JSON, CARD, *(checksums.keys() if checksums else OLD_MODEL_FILES)}
    elif kind == DETECTOR:
        files = _mark(folder, DETECTOR_JSON).get("files")
        listed = {DETECTOR_JSON, *(f for f in files if isinstance(f, str))} if isinstance(files, list) else set()
    else:
        listed = set(CONV_FILES) if kind == CONV_HEAD else set()
    return listed | {MARKER}


def unlisted_files(output: str, files: Sequence[str], kind: str) -> list[str]:
    """Of an output's files (files_under), those entailgen did not write as the `kind` it is (own_files), relative."""
    listed = own_files(output, kind)
    root = join_path(output, "-")[:-1]  # the prefix its files' paths start with: 'out/', 'gs://b/out/'
    relative = [path[len(root):].replace(os.sep, "/") for path in files]
    return [path for path in relative if path not in listed]


def _not_entailgens(output: str, kind: str, path: str) -> str:
    """Why --overwrite refuses an output holding a file entailgen did not write as that output."""
    what = ("an evaluation of the model it replaces" if path.split("/")[-2:-1] == ["eval"] else
            f"which the manifest of {output} does not list" if kind.endswith(" dataset") else
            f"which entailgen did not write as the {kind} {output}")
    return (f"--overwrite would delete {join_path(output, path)}, {what}; move it out first (entailgen deletes only "
            "its own files)")


def interrupted_build(output: str, kind: str) -> Optional[str]:
    """Why a job writing a `kind` must leave the build folder beside output alone, or None: one that is not
    entailgen's, or a resumable build (a detector's, with its trained stages) of another kind, which only a rerun of
    that build may resume or restart."""
    partial = sibling(output, PARTIAL)
    if not FileSystems.exists(partial):
        return None
    if not FileSystems.exists(join_path(partial, MARKER)):
        return f"{partial} is in the way of the build folder and is not entailgen's; move it"
    marker = _json(join_path(partial, MARKER)) or {}
    built = marker.get("kind")
    if "recipe" in marker and built != kind:
        return (f"{partial} holds an interrupted build of an entailgen {built}, which a rerun of that build resumes; "
                f"write the {kind} somewhere else (or delete {partial} to give that build up)")
    return None


def check_output(output: str, kind: str, inputs: Sequence[str] = (), overwrite: bool = False) -> None:
    """Refuse (OutputError) an output a job writing a `kind` ('dae dataset', 'scores dataset', 'model dir', 'Conv
    head') must not write: a file, a folder of someone else's files, an entailgen output of another kind (even with
    --overwrite), one of its own kind without --overwrite or holding files entailgen did not write (own_files), a folder
    inside an entailgen output, a folder holding one of the job's inputs, or one beside an interrupted build of another
    kind (interrupted_build)."""
    if _is_file(output):
        raise OutputError(f"--output is a file, not a directory: {output}")
    check_not_inside_entailgen(output)
    exists = FileSystems.exists(output)
    inside = [path for path in inputs if _inside(path, output) or _inside(path, sibling(output, PARTIAL))]
    if inside and exists:
        raise OutputError(f"input {inside[0]} is inside --output {output}; write the {kind} somewhere else")
    held = files_under(output) if exists else []  # listed once: an object store lists by request
    found = entailgen_folder(output) if held else None
    if held and found is None:
        raise OutputError(f"output directory is not empty and holds nothing entailgen wrote: {output} (entailgen "
                          "replaces only its own outputs; choose another --output)")
    if found == BUILD_FOLDER:
        built = (_json(join_path(output, MARKER)) or {}).get("kind", kind)  # a marker of old holds no kind
        if built != kind:
            raise OutputError(f"--output {output} holds an interrupted build of an entailgen {built}, not a {kind}; "
                              f"--overwrite replaces only a {kind} (choose another --output)")
        if not overwrite:
            raise OutputError(f"output directory holds an interrupted entailgen run: {output} (pass --overwrite to "
                              "replace it)")
    elif found is not None and found != kind:
        raise OutputError(f"--output {output} holds an entailgen {found}, not a {kind}; --overwrite replaces only a "
                          f"{kind} (choose another --output)")
    elif found is not None and not overwrite:
        raise OutputError(f"output directory holds an entailgen {found}: {output} (pass --overwrite to replace it)")
    unlisted = unlisted_files(output, held, found) if found not in (None, BUILD_FOLDER) else []
    if unlisted:
        raise OutputError(_not_entailgens(output, found, unlisted[0]))
    interrupted = interrupted_build(output, kind)
    if interrupted:
        raise OutputError(interrupted)
