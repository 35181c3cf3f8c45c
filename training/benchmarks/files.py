"""Reading a benchmark's files: the one error every benchmark reader raises, naming the file and row, and the CSV
reader TRUE's files and the span annotations share."""
from __future__ import annotations

import csv
import sys
from typing import Sequence


class BenchmarkError(ValueError):
    """Bad benchmark input or a dataset the protocol cannot score: one line naming the file and row, or the dataset
    and cut."""


def csv_rows(path: str, columns: Sequence[str], what: str, layout: str = "", delimiter: str = ",") -> list[dict]:
    """The rows of a CSV (TSV) file with the given columns, each with its '_line' (the header is line 1);
    BenchmarkError (one line) for a file that cannot be read (naming it `what`) or a missing column (naming the
    header it has, after the layout it should have)."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # groundings of TRUE's summarisation sets are long
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL if delimiter == "," else
                                    csv.QUOTE_NONE)
            missing = [c for c in columns if c not in (reader.fieldnames or [])]
            if missing:
                raise BenchmarkError(f"{path}: no column {', '.join(missing)} ({layout + '; ' if layout else ''}its "
                                     f"header: {', '.join(reader.fieldnames or []) or 'none'})")
            return [{**row, "_line": n} for n, row in enumerate(reader, 2)]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BenchmarkError(f"cannot read {what} {path}: {getattr(e, 'strerror', None) or e}")
