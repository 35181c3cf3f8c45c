"""Options that name a file or directory a run reads, so the manifest and the refresh version hash their contents."""
from __future__ import annotations

import dataclasses
import os
from typing import Any

READS = "reads"  # field metadata key: the field's value is a path the run reads (a file, or a model directory)


def path_option(default: Any = None) -> Any:
    """A dataclass field whose value is a file or directory the run reads (None: not set; a hub id: not a path)."""
    return dataclasses.field(default=default, metadata={READS: True})


def user_cache(name: str) -> str:
    """A cache folder that outlives runs (a run points TMPDIR at a private folder it deletes): ~/.cache/entailgen/name;
    OSError where there is no home folder (no HOME, a user without one), not a folder named '~' in the working
    directory."""
    root = os.environ.get("XDG_CACHE_HOME")
    if not root:
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise OSError("no home folder to keep a cache in (HOME is not set): set HOME or XDG_CACHE_HOME")
        root = os.path.join(home, ".cache")
    return os.path.join(root, "entailgen", name)


def option_paths(options: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted option name, path) for every path_option field that is set, in options and the dataclasses it holds."""
    found: list[tuple[str, str]] = []
    if not dataclasses.is_dataclass(options):
        return found
    for field in dataclasses.fields(options):
        value, name = getattr(options, field.name), prefix + field.name
        if field.metadata.get(READS):
            found.extend((name, v) for v in (value if isinstance(value, (list, tuple)) else [value]) if v)
        elif dataclasses.is_dataclass(value):
            found.extend(option_paths(value, name + "."))
    return found
