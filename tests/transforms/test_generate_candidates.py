"""A user's JSONL beams joined to their sources by id or text, ranked by list order or score; bad rows dead."""
import json

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.candidates import (CandidateRow, JoinCandidates, UserCandidatesOptions, parse_row,
                                                      row_candidates)


def row(**fields):
    return json.dumps(fields)


def test_row_by_source_id_keeps_list_order_as_rank():
    parsed = parse_row(row(source_id="s1", candidates=["best", " next  one ", ""]))
    assert parsed == CandidateRow(("id", "s1"), (("best", None), ("next one", None), ("", None)), parsed.raw)
    assert row_candidates("s1", parsed, "user") == (Candidate("s1", "best", 1, None, "user"),
                                                     Candidate("s1", "next one", 2, None, "user"))


def test_row_by_source_text_with_scores_is_ranked_by_score():
    parsed = parse_row(row(source="a  cat sat", candidates=[{"text": "worse", "score": -2}, {"text": "better",
                                                                                           "score": -0.5}]))
    assert parsed.key == ("text", "a cat sat")
    assert [(c.text, c.rank, c.score) for c in row_candidates("x", parsed, "user")] == [("better", 1, -0.5),
                                                                                         ("worse", 2, -2.0)]


def test_some_scores_missing_means_list_order():
    parsed = parse_row(row(source_id=7, candidates=[{"text": "first"}, {"text": "second", "score": 3}]))
    assert parsed.key == ("id", "7")
    assert [c.text for c in row_candidates("7", parsed, "user")] == ["first", "second"]


@pytest.mark.parametrize("line, error", [
    ("{not json", "JSONDecodeError"),
    ("[1, 2]", "ValueError"),
    (row(candidates=["a"]), "ValueError"),
    (row(source_id="s", candidates=[]), "ValueError"),
    (row(source_id="s", candidates="a"), "ValueError"),
    (row(source_id="s", candidates=[{"score": 1}]), "ValueError"),
    (row(source_id="s", candidates=[{"text": "a", "score": True}]), "ValueError"),
    ('{"source_id": "s", "candidates": [{"text": "a", "score": NaN}]}', "ValueError"),
])
def test_bad_rows_are_dead_letters(line, error):
    dead = parse_row(line, UserCandidatesOptions(name="beams.jsonl"))
    assert isinstance(dead, DeadLetter)
    assert (dead.source, dead.stage, dead.error_type, dead.raw) == ("beams.jsonl", "candidates", error, line)


def test_join_candidates_transform():
    sources = [SourceText("the cat sat", "para", "s1"), SourceText("a dog  ran", "para", "s2"),
               SourceText("no beam here", "para", "s3"), SourceText("both keys", "para", "s4")]
    rows = [row(source_id="s1", candidates=["cat sat", "the cat"]),
            row(source_id="s1", candidates=["again"]),  # a second row for s1: the one whose text sorts first wins
            row(source="a dog ran", candidates=[{"text": "dog ran", "score": -1.0}]),
            row(source_id="s9", candidates=["orphan"]),
            row(source_id="s4", candidates=["by id"]), row(source="both keys", candidates=["by text"]),
            "{broken"]
    with TestPipeline() as p:
        out = {"sources": p | "Sources" >> beam.Create(sources),
               "rows": p | "Rows" >> beam.Create(rows)} | JoinCandidates(UserCandidatesOptions(name="beams.jsonl"))
        assert_that(out.candidates, equal_to([
            Candidate("s1", "again", 1, None, "user"),
            Candidate("s2", "dog ran", 1, -1.0, "user"), Candidate("s4", "by id", 1, None, "user")]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.error_type)), equal_to([
            ("s1", "DuplicateCandidates"), ("s9", "UnmatchedCandidates"), ("s3", "MissingCandidates"),
            (parse_row("{broken").source_id, "JSONDecodeError")]), label="dead")
