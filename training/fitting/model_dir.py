"""A trained model dir opened once: its config read, its files checked against the sha256 its training
recorded and its weights against the config, a single time at the top, then handed as one object to every layer that
scores with it (the CLI, Detector, DocumentScorer, the pair / DAE scorers, the score cache, Beam's handlers), so none
of them reads or hashes the dir again."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Union

from entailgen.training.fitting import checkpoint
from entailgen.transforms.generate.model_dir import copy_to_local, is_remote


@dataclass(frozen=True, eq=False)
class ModelDir:
    """A verified model dir: where it is on this machine, its config's meta and its identity (checksums)."""

    path: str  # the local dir the checks read (a remote dir's local copy)
    meta: dict = field(repr=False)  # the entailgen part of its config, with encoder_config (checkpoint.load_meta)
    checksums: str  # sha256 of its checksums.json: which model a Conv head or a score cache belongs to ("" if none)
    source: str = ""  # the path as given (gs://... for a remote dir): a worker on another machine opens it again

    @classmethod
    def open(cls, path: Union[str, os.PathLike, "ModelDir"]) -> "ModelDir":
        """The dir verified once (checkpoint.verify_model_dir: each file hashed a single time, the weights' header
        against the config); a ModelDir is returned as it is, so a constructor given either opens at most once; else
        ModelDirError, today's one line naming the file and what is wrong."""
        if isinstance(path, ModelDir):
            return path
        source = os.fspath(path)
        local = copy_to_local(source) if is_remote(source) else source
        meta = checkpoint.verify_model_dir(local)
        listed = os.path.join(local, checkpoint.CHECKSUMS)
        return cls(local, meta, checkpoint.file_sha256(listed) if os.path.isfile(listed) else "", source)

    @property
    def task(self) -> str:
        """dae or pair: which scorer reads it (a pair handler or a DAE one)."""
        return self.meta.get("task", "")

    def load(self, device: str = "cpu"):
        """(torch model in eval mode on device, tokenizer) from the checked files, without checking them again; a
        worker that unpickled this on another machine (no such local dir) opens its own copy first."""
        opened = self if os.path.isdir(self.path) else ModelDir.open(self.source or self.path)
        return checkpoint.load_weights(opened.path, opened.meta, device)

    def __fspath__(self) -> str:  # os.path.join(model, "eval"), a card or report written into it: the dir itself
        return self.path

    def __str__(self) -> str:  # in messages, the dir as the user gave it
        return self.source or self.path
