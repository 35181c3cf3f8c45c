"""Ranked hypotheses h1..hk for each source sentence x: the beam that DAE labels arcs from (Goyal & Durrett 2020 §4).

Generators: `hf` (any Hugging Face seq2seq model, beam search), `apertium` (offline round-trip translation, the
embedded default) and `candidates` (a user's own JSONL). All of them emit `Candidate` records, best first (rank 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from entailgen.schemas.sources import SourceText

# Role of a candidate's parse unit, so the label stage can tell x, h* and the beam apart after one shared Parse.
ROLE_CANDIDATE = "candidate"


@dataclass(frozen=True)
class Candidate:
    """One hypothesis of the beam for a source sentence: rank 1 is the generator's best, score its own measure."""

    source_id: str
    text: str
    rank: int
    score: Optional[float]
    generator: str


def as_unit(candidate: Candidate, source: str) -> SourceText:
    """The candidate as a parse unit keyed to its source sentence, so its parse can join back to it."""
    return SourceText(text=candidate.text, source=source, source_id=candidate.source_id, role=ROLE_CANDIDATE)


__all__ = ["Candidate", "ROLE_CANDIDATE", "as_unit"]
