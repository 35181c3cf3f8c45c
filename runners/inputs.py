"""Inputs a family cannot use are an error (exit 2), never an empty dataset: checked before the job, and after it."""
from __future__ import annotations

from typing import Any, Optional

from apache_beam.io.filesystems import FileSystems

from entailgen.dataset.manifest import is_dataset
from entailgen.pipelines.base import Family, RunConfig
from entailgen.transforms.io.dataset import DATASET, check_dataset
from entailgen.transforms.io.formats import FORMAT_RECORDS, detect_format, head_line
from entailgen.transforms.io.option_files import check_compression


def takes(family: Family, options: Any) -> str:
    """What the family reads (with these options), for error lines."""
    return f"{family.name} takes {', '.join(family.formats(options))}"


def input_format_error(family: Family, options: Any, path: str, input_format: Optional[str]) -> Optional[str]:
    """Why a file cannot give the family a record before anything runs (empty, or a format it does not use), or None.

    Raises ValueError when the file's format cannot be told."""
    try:
        if input_format == DATASET or is_dataset(path):  # a family's default format is for files
            check_dataset(path)  # no manifest, one that is not JSON or names no record type: one line
            fmt = DATASET
        else:
            check_compression("--input", path)
            if input_format is not None and head_line(path) is None:
                return f"input {path} is empty"
            fmt = input_format or detect_format(path)
    except OSError as e:  # a folder, no permission, a broken link: one line, not a traceback
        return f"cannot read input {path}: {e.strerror or e}"
    if fmt in family.formats(options):
        return None
    how = "given" if input_format else "detected"
    return (f"input {path} is {fmt} ({how}), whose {FORMAT_RECORDS[fmt].__name__} records {family.name} does not use"
            f" with these options; {takes(family, options)}")


def check_inputs(family: Family, options: Any, inputs: list[str], input_format: Optional[str]) -> None:
    """Refuse (ValueError, one line) the first input that is empty or in a format the family does not use."""
    for path in inputs:
        error = input_format_error(family, options, path, input_format)
        if error:
            raise ValueError(error)


def usable_samples(family: Family, options: Any, samples: list[str]) -> list[str]:
    """The sample files whose format the family uses with these options (recast --phenomena ner: the CoNLL file)."""
    return [path for path in samples if detect_format(path) in family.formats(options)]


def unused_inputs(family: Family, config: RunConfig, manifest: dict) -> Optional[str]:
    """One line naming every input that gave no record (all dead letters or skips), or None when each gave one."""
    counts = manifest["counts"]
    unused = []
    for path in config.inputs:
        name = FileSystems.split(path)[1]
        if counts.get("records_by_source", {}).get(name, 0):
            continue
        fmt = config.input_format or detect_format(path)
        unused.append(f"{name} ({fmt}: {counts.get('read', {}).get(name, 0)} units read, "
                      f"{counts.get('dead_by_source', {}).get(name, 0)} dead letters, "
                      f"{counts.get('skipped_by_source', {}).get(name, 0)} skipped)")
    if not unused:
        return None
    return (f"no record {family.name} can use came from {'; '.join(unused)}; {takes(family, config.family)}. "
            f"The dataset was still written to {config.output}: see its dead letters and skip counts")
