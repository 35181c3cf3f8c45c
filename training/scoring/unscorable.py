"""A pair or row a model cannot score (Unscorable), the rule that finds the rows whose texts no model can read (the
score job's dead letters and the Python API's Unscorables, one rule), and the benchmark's rule for an Unscorable:
scored 0.0 and counted, never dropped. No torch here, so the benchmark evaluator and the model card read it without
loading a model."""
from __future__ import annotations

import functools
import re
from typing import Callable, Iterable, Optional, Sequence

from entailgen.transforms.io.base import Reject, writable

PAIR_FIELDS = ("premise", "hypothesis")  # a pair's texts, as the score job's rows name them
DOCUMENT_FIELDS = ("document", "summary")  # a document row's (score --documents)
JSON_TYPES = {bool: "a boolean", int: "a number", float: "a number", list: "an array", dict: "an object"}
WORD = re.compile(r"\w")


class Unscorable(ValueError):
    """A pair the model cannot score: no content arc in the hypothesis, or longer than the model's max length."""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type


def unscorable_text(values: Sequence, fields: Sequence[str]) -> Optional[Unscorable]:
    """Why a row's texts (values, named by fields) cannot be scored, or None: a field that is not text (NotText, naming
    its type: 12345), missing or blank (MissingField: None, ""), with no word in it (NoWords: "...", "!!!": nothing a
    parser or a model reads), or holding a lone surrogate or a NUL (BadEncoding: no tokenizer, parser or shard can
    write it). The one rule of the score job's dead letters and of the scorers' Python API."""
    not_text = [f"{k} is {JSON_TYPES.get(type(v), type(v).__name__)}" for k, v in zip(fields, values)
                if v is not None and not isinstance(v, str)]
    if not_text:
        return Unscorable("NotText", f"{', '.join(not_text)}, not text")
    missing = [k for k, v in zip(fields, values) if v is None or not v.strip()]
    if missing:
        return Unscorable("MissingField", f"no text in {', '.join(missing)}")
    wordless = [k for k, v in zip(fields, values) if not WORD.search(v)]
    if wordless:
        return Unscorable("NoWords", f"no word in {', '.join(wordless)}")
    for k, v in zip(fields, values):
        try:
            writable(v, k)
        except Reject as e:
            return Unscorable(e.error_type, e.message)
    return None


def listed(rows: Iterable) -> list:
    """The rows as a list, walked once: a scorer walks its rows more than once (checked, split, each member's turn,
    zipped with the results), and a generator or iterator walked twice gives nothing the second time."""
    return rows if isinstance(rows, list) else list(rows)


def given_rows(method):
    """A scorer method whose rows (its first argument) may be any iterable (a list, a generator, a file's lines
    mapped): listed once where they enter, so every row gets its answer, in order, never silently none."""
    @functools.wraps(method)
    def taking(self, rows, *args, **kwargs):
        return method(self, listed(rows), *args, **kwargs)
    return taking


def checked_rows(rows: Iterable, fields: Sequence[str], score: Callable[[list], list]) -> list:
    """score(the rows whose texts can be scored) with each other row's Unscorable (unscorable_text) in its place, in
    order: one bad row is that row's answer, never an exception that loses the batch. A row that is not a tuple of
    len(fields) values is the caller's mistake: TypeError at once, before anything is scored."""
    rows = listed(rows)
    for row in rows:
        if not isinstance(row, (tuple, list)) or len(row) != len(fields):
            raise TypeError(f"each row is a ({', '.join(fields)}) tuple, got {str(row)[:60]!r}")
    problems = [unscorable_text(row, fields) for row in rows]
    good = [tuple(row) for row, problem in zip(rows, problems) if problem is None]
    results = iter(score(good) if good else [])
    return [problem if problem is not None else next(results) for problem in problems]


def only_result(results: list):
    """The one result of a one-row call, its Unscorable raised."""
    (result,) = results
    if isinstance(result, Unscorable):
        raise result
    return result


def every_scored(results: Sequence) -> list[float]:
    """A score for every row, an Unscorable one 0.0 (the lowest: inconsistent at any threshold that finds a row
    inconsistent): a benchmark figure covers every row, as the paper's, so a row is never dropped, and raising after a
    long scoring run would lose it all; evaluate_benchmark counts them."""
    return [0.0 if isinstance(r, Unscorable) else r for r in results]
