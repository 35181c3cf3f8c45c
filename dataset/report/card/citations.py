"""The card's "Sources and citations": the papers whose rules made the data."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts

CITATIONS = (
    "Tanya Goyal and Greg Durrett. 2020. Evaluating Factuality in Generation with Dependency-level Entailment. "
    "Findings of EMNLP 2020.",
    "Adam Poliak. 2020. PhD thesis, Johns Hopkins University: ch. 3 (recasting, the Diverse NLI Collection) and "
    "ch. 5 (hypothesis-only baselines).",
    "Julius Steen, Juri Opitz, Anette Frank and Katja Markert. 2023. With a Little Push, NLI Models can Robustly "
    "and Efficiently Predict Faithfulness. ACL 2023.",
    "Wojciech Kryściński, Bryan McCann, Caiming Xiong and Richard Socher. 2020. Evaluating the Factual Consistency "
    "of Abstractive Text Summarization. EMNLP 2020.",
    "Philippe Laban, Tobias Schnabel, Paul N. Bennett and Marti A. Hearst. 2022. SummaC: Re-Visiting NLI-based "
    "Models for Inconsistency Detection in Summarization. TACL 10.",
)


def section(facts: CardFacts) -> list[str]:
    """Every paper, one a line."""
    return [f"- {c}" for c in CITATIONS] + [""]
