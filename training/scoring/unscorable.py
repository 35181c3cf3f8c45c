"""A pair or row a model cannot score (Unscorable), and the benchmark's rule for it: scored 0.0 and counted, never
dropped. No torch here, so the benchmark evaluator and the model card read it without loading a model."""
from __future__ import annotations

from typing import Sequence


class Unscorable(ValueError):
    """A pair the model cannot score: no content arc in the hypothesis, or longer than the model's max length."""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type


def only_result(results: list):
    """The one result of a one-row call, its Unscorable raised."""
    (result,) = results
    if isinstance(result, Unscorable):
        raise result
    return result


def every_scored(results: Sequence) -> list[float]:
    """A score for every row, an Unscorable one 0.0 (the lowest: inconsistent at any threshold that finds a row
    inconsistent): a benchmark figure covers every row, as the paper's, so a row is never dropped, and raising after a
    long scoring run lost it all (issue 42); evaluate_benchmark counts them."""
    return [0.0 if isinstance(r, Unscorable) else r for r in results]
