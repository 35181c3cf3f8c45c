"""The dataset card (README.md, Hugging Face style): what the data is, how it was made, its numbers and its limits.

Each `##` section is a module of this package that renders its lines from the card's facts (facts.CardFacts);
SECTIONS puts them in order, so a new section is its module and one line there. A section with no lines is left out.
"""
from __future__ import annotations

from entailgen.dataset.report.card import (citations, counts, fields, files, how_made, limits, loading, separability,
                                          statistics)
from entailgen.dataset.report.card.facts import CardFacts
from entailgen.dataset.report.card.header import front_matter, input_licences

CARD = "README.md"
INTRO = ("Synthetic textual-entailment training data built by entailgen. Open `report.html` beside this file for plots "
         "and drawn examples; `manifest.json` lists every shard with its checksum.")
SECTIONS = (
    ("How it was made", how_made.section),
    ("Counts", counts.section),
    ("Fields", fields.section),
    ("How to load it", loading.section),
    ("Statistics", statistics.section),
    ("Separability", separability.section),
    ("Known limits", limits.section),
    ("Files", files.section),
    ("Sources and citations", citations.section),
)


def render_card(manifest: dict, stats: dict, description: str = "", sample_digests: frozenset = frozenset()) -> str:
    """README.md of a dataset directory: YAML front matter, a title and what the data is, then each section.

    sample_digests: sha256 of the embedded sample files; inputs with these digests get the 'tiny sample' warning.
    """
    facts = CardFacts(manifest, stats, input_licences(manifest, sample_digests), sample_digests)
    lines = ["---", front_matter(facts), "---", "", f"# entailgen `{manifest['pipeline']}` dataset", "",
             description + "." if description else "", "", INTRO, ""]
    for title, section in SECTIONS:
        body = section(facts)
        if body:
            lines += [f"## {title}", "", *body]
    return "\n".join(lines)
