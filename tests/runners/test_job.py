"""The job's wiring of records branches: a statistic over several branches equals the one over their flatten."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.runners.job import _statistic


def test_a_statistic_over_branches_merges_their_accumulators():
    with TestPipeline() as p:
        branches = (p | "A" >> beam.Create([1, 2, 3]), p | "B" >> beam.Create([10]), p | "Empty" >> beam.Create([]))
        assert_that(_statistic(branches, "mean", beam.combiners.MeanCombineFn()), equal_to([4.0]))
        assert_that(_statistic(branches[:1], "one", beam.combiners.MeanCombineFn()), equal_to([2.0]), label="one")
        assert_that(_statistic(branches[2:], "none", beam.combiners.CountCombineFn()), equal_to([0]), label="none")
