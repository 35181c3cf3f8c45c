"""The card's "Separability": how well word overlap and the other cheap cues alone predict the labels, per rule."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts
from entailgen.dataset.report.separability import reading, separability_table

WHAT = ("ROC AUC with which each cue alone predicts \"entailed\", per rule over all splits (per split: the "
        "`separability` block of `manifest.json`; a tie counts half). overlap: the share of the hypothesis's content "
        "words found in the premise (an arc: how many of its head and child are); negation: no negation word; absent "
        "name: no capitalised word the premise lacks; length: the hypothesis's words; disfluency: the share of its "
        "word bigrams seen in the dataset's premises.")


def section(facts: CardFacts) -> list[str]:
    """The separability table over all splits and how to read it; nothing for a dataset without labels."""
    block = facts.manifest.get("separability")
    if not block or not block["rules"]:
        return []
    return [WHAT, "", separability_table(block).rstrip("\n"), "",
            *(line for said in reading(block) for line in (said, ""))]
