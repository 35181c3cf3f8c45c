"""Reading a benchmark's files: the one error every benchmark reader raises, naming the file and row."""
from __future__ import annotations


class BenchmarkError(ValueError):
    """Bad benchmark input or a dataset the protocol cannot score: one line naming the file and row, or the dataset
    and cut."""

