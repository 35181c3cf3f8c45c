"""Records branches: one CombineFn over several branches equals the one over their flatten."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.dataset.branches import CombineBranches, EachBranch


def test_a_combine_over_branches_merges_their_accumulators():
    with TestPipeline() as p:
        branches = (p | "A" >> beam.Create([1, 2, 3]), p | "B" >> beam.Create([10]), p | "Empty" >> beam.Create([]))
        assert_that(branches | "Mean" >> CombineBranches(beam.combiners.MeanCombineFn()), equal_to([4.0]))
        assert_that(branches[:1] | "One" >> CombineBranches(beam.combiners.MeanCombineFn()), equal_to([2.0]),
                    label="one")
        assert_that(branches[2:] | "None" >> CombineBranches(beam.combiners.CountCombineFn()), equal_to([0]),
                    label="none")


def test_each_branch_gets_the_transform_and_stays_apart():
    with TestPipeline() as p:
        branches = (p | "A" >> beam.Create([1, 2]), p | "B" >> beam.Create([10]))
        doubled = branches | "Double" >> EachBranch(lambda: beam.Map(lambda x: 2 * x))
        assert len(doubled) == 2
        assert_that(doubled[0], equal_to([2, 4]), label="a")
        assert_that(doubled[1], equal_to([20]), label="b")
