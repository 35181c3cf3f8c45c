"""The manifest's separability block for card and page: per rule, the label balance and each cheap cue's ROC AUC, and
two lines on reading them, so a reader sees at a glance which rules word overlap (or another cue) alone separates."""
from __future__ import annotations

from typing import Optional

ALL = "all"
CHANCE = 0.5
ROUND = 4  # the manifest's decimals
MEANING = ("An AUC near 0.5 means the cue alone cannot tell entailed units from not-entailed ones; the farther from "
           "0.5, either way (below it the cue works inverted), the more a detector can learn the cue instead of the "
           "facts.")


def _auc(value: Optional[float]) -> str:
    """An AUC to two decimals; a rule with one class has none, said as such."""
    return "— (one class)" if value is None else f"{value:.2f}"


def separability_rows(block: dict, split: str = ALL) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the block's rules (the all-rules row first) for one split: the card's table and the page's."""
    cues = block["cues"]
    header = ["rule", f"{block['unit']}s", "positive", *(c.replace("_", " ") + " AUC" for c in cues)]
    rows = [[rule, str(cell["units"]), f"{cell['share_positive']:.0%}", *(_auc(cell["auc"][c]) for c in cues)]
            for rule in sorted(block["rules"], key=lambda r: (r != ALL, r))
            if (cell := block["rules"][rule].get(split)) is not None]
    return header, rows


def separability_table(block: dict, split: str = ALL) -> str:
    """One Markdown table of the block's rules (the all-rules row first) for one split (default: over all)."""
    header, rows = separability_rows(block, split)
    lines = ["| " + " | ".join(header) + " |", "|---|---:|---:|" + "---:|" * (len(header) - 3)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def _from_chance(auc: float) -> float:
    """How far an AUC is from chance, either way (rounded, so 0.89 and 0.11 tie as they should)."""
    return round(abs(auc - CHANCE), ROUND)


def strongest(aucs: dict, cues: list[str]) -> Optional[tuple[str, float]]:
    """(cue, AUC) of the cue farthest from chance, the first in cue order on a tie; None where no cue has an AUC."""
    return max(((c, aucs[c]) for c in cues if aucs.get(c) is not None), key=lambda ca: _from_chance(ca[1]),
               default=None)


def reading(block: dict, split: str = ALL) -> list[str]:
    """Two lines that say how to read the table: what an AUC near chance means, and which cue gives most away (over
    all rules, then within one rule)."""
    cues, rules = block["cues"], block["rules"]
    overall = strongest(rules.get(ALL, {}).get(split, {}).get("auc", {}), cues)
    if overall is None:
        return [MEANING, "No cue has an AUC here: the units are all of one label."]
    cue, auc = overall
    said = (f"The strongest cue over all rules is {cue.replace('_', ' ')}: ROC AUC {auc:.2f}, "
            f"{_from_chance(auc):.2f} from chance")
    within = [(rule, *found) for rule in sorted(set(rules) - {ALL}) if split in rules[rule]
              if (found := strongest(rules[rule][split]["auc"], cues)) is not None]
    if within:
        rule, cue, auc = max(within, key=lambda rca: _from_chance(rca[2]))
        said += (f"; within one rule, {cue.replace('_', ' ')} on {rule} ({auc:.2f} over "
                 f"{rules[rule][split]['units']} {block['unit']}s)")
    return [MEANING, said + "."]
