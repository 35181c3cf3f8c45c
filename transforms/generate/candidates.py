"""A user's own beams, read from JSON Lines and joined to the source sentences they were generated from.

One row per source: {"source_id": ID or "source": TEXT, "candidates": ["best", ...] or [{"text": ..., "score": ...}]}.
Rows join by source_id, or by the source text (whitespace-normalised) when only "source" is given. A source with
no row, a row with no source, a second row for the same key and an unreadable row each become a DeadLetter (Beam
keeps no line order, so of two rows for one key the one whose text sorts first is kept, in any runner).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Iterable, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import DeadLetter, dead_letter
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.rank import normalise

DEAD = "dead"
BY_ID, BY_TEXT = "id", "text"


@dataclass(frozen=True)
class UserCandidatesOptions:
    """Where the rows came from (names the DeadLetters) and the generator id the candidates carry."""

    name: str = "candidates.jsonl"
    generator: str = "user"


@dataclass(frozen=True)
class CandidateRow:
    """A readable row: its join key (BY_ID or BY_TEXT, value) and its hypotheses (text, score or None) in order."""

    key: tuple[str, str]
    hypotheses: tuple[tuple[str, Optional[float]], ...]
    raw: str


@dataclass(frozen=True)
class Match:
    """What one join key found for a source: the row's candidates, or None when no row has that key."""

    by: str
    candidates: Optional[tuple[Candidate, ...]]
    source_text: str
    source: str


def _hypothesis(entry) -> tuple[str, Optional[float]]:
    """(text, score) of one entry of "candidates": a string, or an object with "text" and an optional "score"."""
    if isinstance(entry, str):
        return normalise(entry), None
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
        raise ValueError(f"a candidate must be a string or an object with a string 'text', not {entry!r:.80}")
    score = entry.get("score")
    number = isinstance(score, (int, float)) and not isinstance(score, bool)
    if score is not None and not (number and math.isfinite(score)):
        raise ValueError(f"candidate score must be a finite number, not {score!r:.40}")
    return normalise(entry["text"]), None if score is None else float(score)


def parse_row(line: Union[str, bytes],
              options: UserCandidatesOptions = UserCandidatesOptions()) -> Union[CandidateRow, DeadLetter]:
    """A CandidateRow, or a DeadLetter saying why the line (text, or bytes as read) cannot be one: a line that is
    not UTF-8 is its own dead letter, not the job's end."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError as exc:
            return dead_letter(options.name, content_id(line), "candidates", "BadEncoding", f"not UTF-8: {exc}", line)
    row_id = content_id(line)
    try:
        row = json.loads(line)
        if not isinstance(row, dict):
            raise ValueError("a row must be a JSON object")
        if isinstance(row.get("source_id"), (str, int)) and not isinstance(row.get("source_id"), bool):
            key = (BY_ID, str(row["source_id"]))
        elif isinstance(row.get("source"), str) and row["source"].strip():
            key = (BY_TEXT, normalise(row["source"]))
        else:
            raise ValueError("a row needs a 'source_id' or a non-empty 'source'")
        entries = row.get("candidates")
        if not isinstance(entries, list) or not entries:
            raise ValueError("'candidates' must be a non-empty list")
        hypotheses = tuple(_hypothesis(e) for e in entries)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        return dead_letter(options.name, row_id, "candidates", type(exc).__name__, str(exc), line)
    return CandidateRow(key, hypotheses, line)


def row_candidates(source_id: str, row: CandidateRow, generator: str) -> tuple[Candidate, ...]:
    """The row's non-empty hypotheses ranked 1..n: by score (best first) when all have one, else in list order."""
    hypotheses = [h for h in row.hypotheses if h[0]]
    if hypotheses and all(score is not None for _, score in hypotheses):
        hypotheses = sorted(hypotheses, key=lambda h: -h[1])
    return tuple(Candidate(source_id, text, rank, score, generator)
                 for rank, (text, score) in enumerate(hypotheses, start=1))


def join_keys(source) -> list[tuple[tuple[str, str], object]]:
    """The two keys a source can be found by: its source_id and its normalised text."""
    return [((BY_ID, source.source_id), source), ((BY_TEXT, normalise(source.text)), source)]


def match_key(key: tuple[str, str], sources: list, rows: list[CandidateRow],
              options: UserCandidatesOptions) -> list:
    """For one join key: a Match per source (empty without a row); DeadLetters for sourceless or duplicate rows."""
    rows = sorted(rows, key=lambda r: r.raw)
    used, extra = (rows[0], rows[1:]) if rows else (None, [])
    out: list = [dead_letter(options.name, key[1], "candidates", "DuplicateCandidates",
                             f"another row already gives the candidates for {key[0]} {key[1]!r}", r.raw) for r in extra]
    if used is not None and not sources:
        out.append(dead_letter(options.name, key[1], "candidates", "UnmatchedCandidates",
                               f"no source sentence has {key[0]} {key[1]!r}", used.raw))
    for s in sources:
        found = row_candidates(s.source_id, used, options.generator) if used is not None else None
        out.append((s.source_id, Match(key[0], found, s.text, s.source)))
    return out


def resolve(source_id: str, matches: Iterable[Match],
            options: UserCandidatesOptions) -> Union[list[Candidate], DeadLetter]:
    """The source's candidates (a row by source_id wins over one by text), or a DeadLetter when no row has it."""
    matches = sorted(matches, key=lambda m: (m.by != BY_ID, m.source_text))
    for m in matches:
        if m.candidates is not None:
            return list(m.candidates)
    first = matches[0]
    return dead_letter(first.source, source_id, "candidates", "MissingCandidates",
                       f"no row in {options.name} for this source (by source_id or text)", first.source_text)


class _ParseRows(beam.DoFn):
    """JSON lines (text or bytes) -> CandidateRow, or DeadLetter on output 'dead'; blank lines are left out."""

    def __init__(self, options: UserCandidatesOptions):
        self.options = options

    def process(self, line: Union[str, bytes]):
        if not line.strip():  # blank lines separate nothing: not rows, not dead letters
            return
        row = parse_row(line, self.options)
        yield pvalue.TaggedOutput(DEAD, row) if isinstance(row, DeadLetter) else (row.key, row)


class _MatchKeys(beam.DoFn):
    """One join key's sources and rows -> (source_id, Match), and DeadLetters on output 'dead'."""

    def __init__(self, options: UserCandidatesOptions):
        self.options = options

    def process(self, keyed) -> Iterable[tuple]:
        key, group = keyed
        for out in match_key(key, list(group["sources"]), list(group["rows"]), self.options):
            if isinstance(out, DeadLetter):
                yield pvalue.TaggedOutput(DEAD, out)
            else:
                yield out


class _Resolve(beam.DoFn):
    """(source_id, its Matches) -> the source's Candidates; anything DeadLetter -> output 'dead'."""

    def __init__(self, options: UserCandidatesOptions):
        self.options = options
        self.joined = beam.metrics.Metrics.counter("entailgen", "generated")
        self.dead = beam.metrics.Metrics.counter("entailgen", "generate_dead")

    def process(self, element):
        resolved = element if isinstance(element, DeadLetter) else resolve(element[0], element[1], self.options)
        if isinstance(resolved, DeadLetter):
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, resolved)
            return
        self.joined.inc(len(resolved))
        yield from resolved


class JoinCandidates(beam.PTransform):
    """{'sources': SourceText x, 'rows': JSON lines, as bytes or text} -> Candidate (main output 'candidates') and DeadLetter ('dead')."""

    def __init__(self, options: UserCandidatesOptions = UserCandidatesOptions()):
        super().__init__()
        self.options = options

    def expand(self, inputs):
        rows = inputs["rows"] | "ParseRows" >> beam.ParDo(_ParseRows(self.options)).with_outputs(DEAD, main="rows")
        keyed = inputs["sources"] | "JoinKeys" >> beam.FlatMap(join_keys)
        matched = ({"sources": keyed, "rows": rows.rows} | "ByKey" >> beam.CoGroupByKey()
                   | "Match" >> beam.ParDo(_MatchKeys(self.options)).with_outputs(DEAD, main="matches"))
        found = matched.matches | "BySource" >> beam.GroupByKey()
        return ((found, matched.dead, rows.dead) | "Merge" >> beam.Flatten()
                | "Resolve" >> beam.ParDo(_Resolve(self.options)).with_outputs(DEAD, main="candidates"))
