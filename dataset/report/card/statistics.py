"""The card's "Statistics": each of the family's manifest stats as captioned Markdown tables with their notes."""
from __future__ import annotations

from typing import Any

from entailgen.dataset.report.card.facts import CardFacts
from entailgen.dataset.report.card.markdown import md_table
from entailgen.dataset.report.tables import stat_blocks, stat_notes

def render_stat(value: Any) -> str:
    """A stats value as Markdown: its tables (captioned in bold), a scalar in bold, other shapes as JSON."""
    parts = []
    for block in stat_blocks(value):
        caption = f"**{block.caption}**\n\n" if block.caption else ""
        if block.header:
            parts.append(caption + md_table(block.header, block.rows))
        elif block.code:
            parts.append(caption + "```json\n" + block.text + "\n```")
        else:
            parts.append(caption + f"**{block.text}**")
    return "\n\n".join(parts)


def section(facts: CardFacts) -> list[str]:
    """Each statistic the family recorded, under its key, with the notes that say how to read it."""
    out = []
    for key, value in facts.manifest.get("stats", {}).items():
        notes = [line for note in stat_notes(key, value) for line in (note, "")]
        out += [f"### {key}", "", *notes, render_stat(value), ""]
    return out or ["The pipeline recorded no statistics.", ""]
