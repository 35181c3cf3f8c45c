"""The model a benchmark judges, as `evaluate --benchmark` resolved it once from its options: MODEL_DIR (or the
detector dir it names, opened), how it scores (--score / --mc-dropout, --precision, --device) and the options some
benchmarks take; and what a benchmark's run hands back to be printed and saved.

Nothing here imports torch or the scorers until a scorer is built, so the report and the card can read this module."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Sequence

MODEL_ROW, DETECTOR_ROW = "entailgen model", "entailgen detector"  # MODEL_DIR's row in a benchmark's table


@dataclass(frozen=True)
class JudgedModel:
    """MODEL_DIR and how it scores, resolved once: `detector` is the detector dir MODEL_DIR names, opened (its
    members verified), else None; `device_type` and `precision` are --device and --precision resolved for this
    machine and mode, `device` and `given_precision` as given (a report's name shows --precision as given)."""

    dir: str
    mode: Any  # training.scoring.score_modes.ScoreMode
    device: str = "auto"
    device_type: str = "cpu"
    precision: str = "fp32"
    given_precision: str = "auto"
    detector: Any = None  # training.scoring.detector.DetectorDir
    granularity: Optional[str] = None
    aggregation: Optional[str] = None
    conv: Optional[str] = None
    ensemble: tuple[str, ...] = ()
    articles: Optional[str] = None
    val_only: bool = False
    evidence: Optional[str] = None  # where a sentence's evidence comes from (training.scoring.passages; None: default)
    top_k: Optional[int] = None
    max_length: Optional[int] = None

    @property
    def evidence_options(self) -> dict:
        """The scorers' evidence arguments (DocumentScorer's evidence, top_k, max_length)."""
        return {"evidence": self.evidence, "top_k": self.top_k, "max_length": self.max_length}

    def evidence_entry(self) -> dict:
        """The report's record of how evidence was gathered: {"evidence": evidence_options}, or nothing at the
        default."""
        return {"evidence": self.evidence_options} if self.evidence_part() else {}

    def evidence_part(self) -> str:
        """--evidence, --top-k and --max-length's part of a report's (and a score cache's) name: '' as default."""
        from entailgen.training.scoring.passages import resolved

        default = resolved(None, self.conv is not None)  # the scorer's own: block for a Conv head, else arcs
        return (not_default(self.evidence, default) + (f"-top{self.top_k}" if self.top_k else "")
                + (f"-{self.max_length}" if self.max_length else ""))

    @property
    def row(self) -> str:
        """Its row in a benchmark's table: a detector's named as one."""
        return DETECTOR_ROW if self.detector is not None else MODEL_ROW

    def scorer(self, granularity: str = "sentence"):
        """A scorer of rows and of pairs (pair_scores): the detector's members joined (Detector), else the model's
        DocumentScorer, opening the model dir once (a missing or damaged one refused in one line before it loads)."""
        from entailgen.training.scoring.detector import Detector
        from entailgen.training.scoring.document_scorer import DocumentScorer

        how = dict(device=self.device, score=self.mode.score, mc_dropout=self.mode.mc_dropout,
                   precision=self.precision, **self.evidence_options)
        if self.detector is not None:
            return Detector(self.detector, granularity, **how)
        return DocumentScorer(self.dir, granularity, **how)

    def precision_part(self) -> str:
        """--precision's part of a report's name: '' at auto."""
        return not_default(self.given_precision, "auto")


def not_default(value, default) -> str:
    """An option's part of a report's name: '' at its default."""
    return "" if value in (None, default) else f"-{value}"


def dirs_part(option: str, dirs: Sequence[str]) -> str:
    """The part of a report's name for the dirs an option names (a Conv head, ensemble members): '' for none."""
    return f"-{option}-" + "+".join(os.path.basename(os.path.normpath(d)) for d in dirs) if dirs else ""


class Run(NamedTuple):
    """What a benchmark's run hands back: its report, the table as printed, its section of the model card, and the
    parts of the report's name that say how it was scored (each '-<value>' or '')."""

    report: dict
    table: str
    card: list[str]
    how: tuple[str, ...]
