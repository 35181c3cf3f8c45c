"""Where a model directory comes from: a hub id, a local dir, or a Beam filesystem (gs://) copied to a local one.
Beam is imported only to copy a remote dir, so the trainer reads local models without it."""
from __future__ import annotations

import os
import tempfile
from typing import Optional


def is_remote(path: str) -> bool:
    """Whether the path names a Beam filesystem (gs://, s3://, hdfs://) rather than a local dir or a hub id."""
    return "://" in path and not path.startswith("file://")


def check_model_dir(model: str) -> None:
    """Before a run: a local model given as a path must be a directory holding a config.json (hub ids and gs:// are
    checked where they load): ValueError naming the path and the reason."""
    if "://" in model or not (os.path.isabs(model) or model.startswith((".", "~")) or os.path.exists(model)):
        return
    path = os.path.expanduser(model)
    if not os.path.isdir(path):
        raise ValueError(f"cannot load model {model}: no such directory")
    if not os.path.isfile(os.path.join(path, "config.json")):
        raise ValueError(f"cannot load model {model}: no config.json in it (not a saved transformers or CTranslate2 "
                         "model)")


def copy_to_local(path: str, into: Optional[str] = None) -> str:
    """Copy a model directory from any Beam filesystem (gs://...) to a local temp dir, for from_pretrained."""
    from apache_beam.io.filesystems import FileSystems

    into = into or tempfile.mkdtemp(prefix="entailgen-model-")
    root = path.rstrip("/") + "/"
    (matched,) = FileSystems.match([root + "**"])
    if not matched.metadata_list:
        raise FileNotFoundError(f"no model files under {path}")
    for meta in matched.metadata_list:
        target = os.path.join(into, meta.path[len(root):])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with FileSystems.open(meta.path) as src, open(target, "wb") as dst:
            while chunk := src.read(1 << 24):
                dst.write(chunk)
    return into
