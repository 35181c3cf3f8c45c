"""Comparing a model's scores across batches, threads and machines: the last float bits move (a batch's padding, the
core type's kernels), and a score rounded to 6 digits then moves its 6th, so such scores are compared within a
tolerance, never exactly."""
import pytest

ROUNDED = 2e-6  # two scores each rounded to 6 digits (round(x, 6): 5e-7 off at most) of the same value computed twice


def close(value, abs: float = ROUNDED):
    """`value` with every float in it (nested in lists, tuples and dicts) compared within `abs`, anything else
    exactly: `assert got == close(expected)`."""
    if isinstance(value, float):
        return pytest.approx(value, abs=abs)
    if isinstance(value, dict):
        return {k: close(v, abs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(close(v, abs) for v in value)
    return value
