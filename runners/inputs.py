"""Inputs a family cannot use are an error (exit 2), never an empty dataset: checked before the job, and after it."""
from __future__ import annotations

from collections import Counter
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


def dead_reasons(directory: str, manifest: dict, sources: set[str]) -> dict[str, Counter]:
    """Input name -> how many of its dead units died of each error, from the dataset's dead letters (a unit with
    letters of two errors counts once, as 'A+B')."""
    if not manifest.get("dead_letters", {}).get("rows") or not sources:
        return {}
    from entailgen.schemas.reader import DEAD_LETTERS, read_dataset  # brings torch's Dataset class: only when needed
    units: dict[tuple[str, str], set[str]] = {}
    for row in read_dataset(directory, DEAD_LETTERS):
        if row["source"] in sources:
            units.setdefault((row["source"], row["source_id"]), set()).add(row["error_type"])
    reasons: dict[str, Counter] = {}
    for (source, _), errors in units.items():
        reasons.setdefault(source, Counter())["+".join(sorted(errors))] += 1
    return reasons


def counted(reasons: dict[str, int]) -> str:
    """'TooLong 5, BadEncoding 3': the most frequent first."""
    return ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0])))


def unit_outcomes(name: str, counts: dict, dead: Counter) -> str:
    """'8 of 8 units: TooLong 5, BadEncoding 3' for an input that gave no record: why each unit gave none. Skip reasons
    are counted per run, not per input, so they are named only when no other input has a skipped unit."""
    read = counts.get("read", {}).get(name, 0)
    if not read:
        return "no unit read"
    dead_units, skipped = counts.get("units_dead", {}).get(name, 0), counts.get("skipped_by_source", {}).get(name, 0)
    parts = [counted(dead)] if dead else [f"dead {dead_units}"] if dead_units else []
    if skipped:
        alone = set(counts.get("skipped_by_source", {})) == {name} and counts.get("skipped_by_reason")
        parts.append(f"skipped {skipped}" + (f" ({counted(counts['skipped_by_reason'])})" if alone else ""))
    return f"{dead_units + skipped} of {read} units: {', '.join(parts)}"


def unused_inputs(family: Family, config: RunConfig, manifest: dict) -> Optional[str]:
    """One line naming every input that gave no record and why, its units' reasons counted; None when each gave one."""
    counts = manifest["counts"]
    names = {path: FileSystems.split(path)[1] for path in config.inputs}
    unused = [path for path, name in names.items() if not counts.get("records_by_source", {}).get(name, 0)]
    if not unused:
        return None
    dead = dead_reasons(config.output, manifest, {names[path] for path in unused})
    described = [f"{names[path]} ({config.input_format or detect_format(path)}, "
                 f"{unit_outcomes(names[path], counts, dead.get(names[path], Counter()))})" for path in unused]
    return (f"no record {family.name} can use came from {'; '.join(described)}. The dataset was still written to "
            f"{config.output}: see its dead letters and skip counts")
