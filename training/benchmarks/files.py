"""Reading a benchmark's files: the one error every benchmark reader raises, naming the file and row; the one way
they open a file (as `run` reads its inputs: compressed, a byte-order mark deciding the encoding); the text check;
and each row once."""
from __future__ import annotations

import csv
import io
import sys
from collections import Counter
from typing import Callable, Hashable, Sequence, TypeVar

Row = TypeVar("Row")


class BenchmarkError(ValueError):
    """Bad benchmark input or a dataset the protocol cannot score: one line naming the file and row, or the dataset
    and cut."""


def read_text(path: str, what: str) -> str:
    """A benchmark file's text as `run` reads its inputs (transforms.io.option_files.file_text: gzip and the like by
    its name, a byte-order mark deciding UTF-8, UTF-16 or UTF-32, as spreadsheets write them), line ends kept as
    written (a CSV reader splits them itself); BenchmarkError naming the file (as `what`) where it cannot be read."""
    from entailgen.transforms.io.option_files import file_text  # Beam's FileSystems: only when a file is read

    try:
        return file_text(path)
    except UnicodeDecodeError as e:
        raise BenchmarkError(f"cannot read {what} {path}: not text in its encoding (UTF-8 unless a byte-order mark "
                             f"names another): {e.reason} at byte {e.start}")
    except (OSError, ValueError) as e:
        raise BenchmarkError(f"cannot read {what} {path}: {getattr(e, 'strerror', None) or e}")


def check_text(where: str, texts: dict[str, str]) -> None:
    """BenchmarkError naming the row and field for text no model can read: a lone surrogate (a JSON escape such as
    "\\ud800"), which the tokenizer, the parser and the score cache cannot encode."""
    for field, text in texts.items():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise BenchmarkError(f"{where}: {field} holds a lone surrogate ({text[e.start]!r} at character "
                                 f"{e.start + 1}), not text a model can read")


def distinct_rows(rows: Sequence[Row], identity: Callable[[Row], Hashable], refusal: Callable[[Row, Row], str],
                  group: Callable[[Row], str] = lambda row: "") -> tuple[list[Row], dict[str, int]]:
    """(each row once, in order; copies left out per group): a row given twice (a file given twice, a line repeated)
    scored twice would count twice in the figures and the bootstrap, and a copy adds nothing. BenchmarkError with
    refusal(first, again) where two readings of one row (one identity) disagree, '' where they do not: one row, one
    label, and which is right only its file can say."""
    first: dict[Hashable, Row] = {}
    kept, left_out = [], Counter()
    for row in rows:
        key = identity(row)
        if key not in first:
            first[key] = row
            kept.append(row)
            continue
        refused = refusal(first[key], row)
        if refused:
            raise BenchmarkError(refused)
        left_out[group(row)] += 1
    return kept, dict(left_out)


def csv_rows(path: str, columns: Sequence[str], what: str, layout: str = "", delimiter: str = ",") -> list[dict]:
    """The rows of a CSV (TSV) file with the given columns, each with its '_line' (the header is line 1);
    BenchmarkError (one line) for a file that cannot be read (naming it `what`) or a missing column (naming the
    header it has, after the layout it should have)."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # articles and TRUE's groundings are long
    text = read_text(path, what)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter,
                                quoting=csv.QUOTE_MINIMAL if delimiter == "," else csv.QUOTE_NONE)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise BenchmarkError(f"{path}: no column {', '.join(missing)} ({layout + '; ' if layout else ''}its "
                                 f"header: {', '.join(reader.fieldnames or []) or 'none'})")
        return [{**row, "_line": n} for n, row in enumerate(reader, 2)]
    except csv.Error as e:
        raise BenchmarkError(f"cannot read {what} {path}: {e}")
