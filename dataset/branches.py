"""Records branches: a family's records made in different stages, kept apart, because a local runner holds a flatten
of branches from different stages whole; only small results (run names, counts, accumulators) are flattened."""
from __future__ import annotations

from typing import Callable

import apache_beam as beam


class EachBranch(beam.PTransform):
    """The same transform on every branch, in the stage where the branch is made; a tuple of branches out."""

    def __init__(self, make: Callable[[], beam.PTransform]):
        super().__init__()
        self.make = make

    def expand(self, branches):
        return tuple(branch | f"Branch {i}" >> self.make() for i, branch in enumerate(branches))


class _Accumulate(beam.CombineFn):
    """A CombineFn's accumulator over one branch, to be merged with the other branches' by _Finish."""

    def __init__(self, fn: beam.CombineFn):
        self.fn = fn

    def create_accumulator(self):
        return self.fn.create_accumulator()

    def add_input(self, accumulator, element):
        return self.fn.add_input(accumulator, element)

    def merge_accumulators(self, accumulators):
        return self.fn.merge_accumulators(accumulators)

    def extract_output(self, accumulator):
        return accumulator


class _Finish(_Accumulate):
    """The branches' accumulators merged, then the CombineFn's output."""

    def add_input(self, accumulator, element):
        return self.fn.merge_accumulators([accumulator, element])

    def extract_output(self, accumulator):
        return self.fn.extract_output(accumulator)


class CombineBranches(beam.PTransform):
    """One CombineFn over every branch: each branch accumulates where it is made, then the accumulators merge."""

    def __init__(self, fn: beam.CombineFn):
        super().__init__()
        self.fn = fn

    def expand(self, branches):
        if len(branches) == 1:
            return branches[0] | "Combine" >> beam.CombineGlobally(self.fn)
        partial = [b | f"Accumulate {i}" >> beam.CombineGlobally(_Accumulate(self.fn)) for i, b in enumerate(branches)]
        return partial | "Accumulators" >> beam.Flatten() | "Finish" >> beam.CombineGlobally(_Finish(self.fn))
