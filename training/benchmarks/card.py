"""A benchmark report's section of the model card (fitting.model_card pastes it as the report keeps it): each
benchmark's table and notes in markdown, written when the report is."""
from __future__ import annotations

from entailgen.training.benchmarks import rank19, spans, summac, true

SECTIONS = {m.BENCHMARK: m.card_section for m in (summac, rank19, true, spans)}


def card_section(report: dict) -> list[str]:
    """A human-labelled benchmark's section of the model card, as its module writes it (a report of another name:
    SummaC's layout)."""
    return SECTIONS.get(report["benchmark"], summac.card_section)(report)


def with_card_section(report: dict) -> dict:
    """The report with its card section (card_section) kept in it, as the model card reads it."""
    return {**report, "card_section": card_section(report)}
