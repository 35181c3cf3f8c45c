"""The manifest's separability block as Markdown: per rule, the label balance and each cheap cue's ROC AUC, so a
reader sees at a glance which rules word overlap (or another cue) alone already separates."""
from __future__ import annotations

from typing import Optional

ALL = "all"


def _auc(value: Optional[float]) -> str:
    """An AUC to two decimals; a rule with one class has none, said as such."""
    return "— (one class)" if value is None else f"{value:.2f}"


def separability_table(block: dict, split: str = ALL) -> str:
    """One Markdown table of the block's rules (the all-rules row first) for one split (default: over all)."""
    cues = block["cues"]
    lines = [f"| rule | {block['unit']}s | positive | " + " | ".join(c.replace("_", " ") + " AUC" for c in cues) + " |",
             "|---|---:|---:|" + "---:|" * len(cues)]
    rules = sorted(block["rules"], key=lambda r: (r != ALL, r))
    for rule in rules:
        cell = block["rules"][rule].get(split)
        if cell is None:
            continue
        lines.append(f"| {rule} | {cell['units']} | {cell['share_positive']:.0%} | "
                     + " | ".join(_auc(cell["auc"][c]) for c in cues) + " |")
    return "\n".join(lines) + "\n"
