"""Reading a benchmark's files: the one error every benchmark reader raises, naming the file and row; the one way
they open a file (a UTF-8 BOM read past, as spreadsheets write it); the text check; and each row once."""
from __future__ import annotations

from collections import Counter
from typing import Callable, Hashable, Sequence, TypeVar

Row = TypeVar("Row")


class BenchmarkError(ValueError):
    """Bad benchmark input or a dataset the protocol cannot score: one line naming the file and row, or the dataset
    and cut."""


def read_text(path: str, what: str) -> str:
    """A benchmark file's text, a UTF-8 BOM read past (as TRUE's CSV reader always has) and line ends kept as written
    (a CSV reader splits them itself); BenchmarkError naming the file (as `what`) where it cannot be read."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
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
