"""A family's manifest stats (audit, arc-label baselines, anything) as captioned tables, for card and page alike."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from entailgen.dataset.report.audit_notes import AUDIT_EXPLANATION, CLAIMS_AUDIT_EXPLANATION, audit_findings

SCALARS = (int, float, str, bool, type(None))
# Stats keys the card explains, found by substrings of a stats key or of its members' keys; each note shown once.
STAT_NOTES = (
    ("arc_label", "Arc labels over all hypotheses of every kind, augmentations included (1 entailed, 0 not entailed, "
                  "null unlabelled). The DAE paper's set is about 70:30 entailed:not-entailed (Goyal & Durrett 2020)."),
    ("lexical", "Lexical-match baseline on the arc labels: an arc is called entailed when it occurs in the premise's "
                "parse. Like the majority class beside it, it is computed on the labelled arcs of the §4 kinds (gold, "
                "identity, top1, bottom; table_2_labelled_arcs), as in DAE Table 2: majority class 72.7, lexical "
                "match 74.2 accuracy; far higher here means the labels are guessable from word overlap."),
    ("hypothesis_only", "Hypothesis-only audit (Poliak 2020, ch. 5): a classifier that never sees the premise. "
                        "Accuracy well above the majority class means the hypotheses alone give the label away."),
    ("audit", AUDIT_EXPLANATION),
    ("majority", "Majority-class baseline: the accuracy of always answering the most frequent label."),
    ("claim_only", CLAIMS_AUDIT_EXPLANATION),
)
NOTE_ALIASES = {"entailed_arc": "arc_label", "labelled_arcs": "arc_label"}  # the dae family's stats members


@dataclass(frozen=True)
class StatBlock:
    """One captioned piece of a stats value: a table (header + rows), or a scalar, or JSON text (code)."""

    caption: str = ""
    header: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    text: str = ""
    code: bool = False


def share(n: int, total: int) -> str:
    """n as a percentage of total, one decimal."""
    return f"{100 * n / total:.1f}%" if total else "-"


def cell(value: Any) -> str:
    """A stats value in one table cell: small dicts and lists inline."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(cell(v) for v in value)
    return "" if value is None else str(value)


def stat_blocks(value: Any, caption: str = "") -> list[StatBlock]:
    """Tables for flat dicts (counts get a share column) and two-level dicts; a mixed dict gives one block per part."""
    if isinstance(value, SCALARS):
        return [StatBlock(caption, text=str(value))]
    if value == {} or value == []:
        return [StatBlock(caption, text="none")]
    if not isinstance(value, dict):
        return [StatBlock(caption, text=json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False), code=True)]
    flat = {k: v for k, v in value.items() if isinstance(v, SCALARS)}
    if len(flat) == len(value):
        counts = all(isinstance(v, int) and not isinstance(v, bool) for v in value.values())
        total = sum(value.values()) if counts else 0
        rows = [[k, v, share(v, total)] if counts else [k, cell(v)] for k, v in value.items()]
        return [StatBlock(caption, ["key", "value"] + (["share"] if counts else []), rows)]
    if all(isinstance(v, dict) for v in value.values()):
        columns = list(dict.fromkeys(c for v in value.values() for c in v))
        return [StatBlock(caption, [""] + columns, [[k] + [cell(v.get(c)) for c in columns] for k, v in value.items()])]
    blocks = stat_blocks(flat, caption) if flat else []
    return blocks + [b for k, v in value.items() if k not in flat for b in stat_blocks(v, k)]


def stat_notes(key: str, value: Any) -> list[str]:
    """The explanations for a stats entry: of its key and of its members' keys (lexical_match_accuracy...)."""
    keys = [key] + (list(value) if isinstance(value, dict) else [])
    keys += [NOTE_ALIASES[alias] for alias in NOTE_ALIASES if any(alias in k.lower() for k in keys)]
    found = [pattern for pattern, _ in STAT_NOTES if any(pattern in k.lower() for k in keys)]
    if "audit" in found:  # the audit explanation already says what its majority and hypothesis-only numbers mean
        found = [p for p in found if p not in ("majority", "hypothesis_only")]
    if "claim_only" in found:  # the claims audit has its own explanation, which covers both baselines
        found = [p for p in found if p not in ("audit", "majority", "hypothesis_only")]
    notes = [note for pattern, note in STAT_NOTES if pattern in found]
    if "audit" in found and isinstance(value, dict):
        notes += audit_findings(value)  # what this audit's own numbers say, so the text always matches them
    return notes
