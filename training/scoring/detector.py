"""A detector dir (`entailgen detector`): entailgen's best detector as one model, its members scoring together.

The dir holds the members (model dirs under members/), the datasets they were trained on, detector.json (the recipe,
each member's checksums and dataset, the documents left out) and a card. A row's score is the members' SummaC-ZS
scores joined by the mean of their log-odds (training.scoring.summac.ensemble_score), as `evaluate --ensemble` joins
models: the claims source view's model (facts swapped between document and summary) and the DAE arc model (relations the
document does not support), each catching errors the other misses.
Plain torch: no Beam here.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Union

from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer
from entailgen.training.scoring.passages import BLOCK, CHUNKS, PACKED
from entailgen.training.fitting.encoder import ModelDirError
from entailgen.training.scoring.score_modes import E, ScoreMode
from entailgen.training.scoring.summac import CONV, ZS, ensemble_score, load_conv
from entailgen.training.scoring.unscorable import PAIR_FIELDS, Unscorable, checked_rows, given_rows
from entailgen.schemas.files import DETECTOR_JSON
from entailgen.transforms.parser import ParserConfig

JOIN = "mean of the members' log-odds, each member's SummaC-ZS score (training.scoring.summac.ensemble_score)"


def is_detector(directory: str) -> bool:
    """Whether a model argument names a detector dir rather than a model dir."""
    return os.path.isfile(os.path.join(directory, DETECTOR_JSON))


@dataclass(frozen=True, eq=False)
class DetectorDir:
    """A detector dir opened once: detector.json read, each member opened as a ModelDir (its files hashed a single
    time) and matched against the checksums the build recorded, and the member its Conv head was fit on found."""

    directory: str
    meta: dict = field(repr=False)  # detector.json
    members: tuple[ModelDir, ...]  # in detector.json's order
    conv: Optional[str] = None  # the Conv head's dir (`detector --conv`)
    conv_member: Optional[ModelDir] = None  # the member it was fit on

    @classmethod
    def open(cls, directory: Union[str, "DetectorDir"]) -> "DetectorDir":
        """The dir whose members are all there, unchanged since it was built (their checksums), and whose Conv head
        (if any) was fit on one of them; else ModelDirError naming what is wrong, as a damaged model dir is refused. A
        DetectorDir is returned as it is."""
        if isinstance(directory, DetectorDir):
            return directory
        directory = os.fspath(directory)
        try:
            with open(os.path.join(directory, DETECTOR_JSON), encoding="utf-8") as f:
                meta = json.load(f)
            records = meta["members"]
            if not records or not all(isinstance(m["dir"], str) and isinstance(m["checksums"], str)
                                      for m in records):
                raise ValueError("no member")
        except FileNotFoundError:
            raise ModelDirError(f"{directory} has no {DETECTOR_JSON}: not a detector `entailgen detector` finished")
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ModelDirError(f"{directory}: {DETECTOR_JSON} is unreadable ({e})")
        members = []
        for record in records:
            member = ModelDir.open(os.path.join(directory, record["dir"]))  # its files against its training's sha256
            if member.checksums != record["checksums"]:
                raise ModelDirError(f"{member} is not the member {DETECTOR_JSON} names (other checksums): the detector "
                                    "was changed since it was built")
            members.append(member)
        if not meta.get("conv"):
            return cls(directory, meta, tuple(members))
        conv = os.path.join(directory, meta["conv"])
        try:
            fit_on = load_conv(conv)[1].get("model_checksums")
        except ValueError as e:
            raise ModelDirError(f"{directory}: {e}")
        member = next((m for m in members if m.checksums == fit_on), None)
        if member is None:
            raise ModelDirError(f"{conv} was fit on no member of the detector {directory}: it was changed since it was "
                                "built")
        return cls(directory, meta, tuple(members), conv, member)

    def heads(self, plain: bool = True) -> dict[str, Optional[str]]:
        """Each member's dir, in order -> the Conv head its rows are scored by (`detector --conv`: the member the head
        was fit on), else None (SummaC-ZS); every member ZS where the mode is not plain (the head reads plain e
        scores)."""
        return {m.path: self.conv if plain and m is self.conv_member else None for m in self.members}

    def __fspath__(self) -> str:
        return self.directory

    def __str__(self) -> str:
        return self.directory


def heads_in_words(heads: dict[str, Optional[str]]) -> str:
    """How a detector's members score a row: 'claims-source by its Conv head (claims-source.conv), dae-arcs by ZS'."""
    return ", ".join(f"{os.path.basename(m)} by " + (f"its Conv head ({os.path.basename(h)})" if h else "ZS")
                     for m, h in heads.items())


class Detector(EnsembleScorer):
    """A detector dir as a document scorer: `Detector(dir).score_documents([(document, summary)])`; also a pair
    scorer (pair_scores), for the benchmarks that score sentence pairs (rank19, TRUE's one-sentence groundings). A
    member with a Conv head (`detector --conv`) scores its rows by it in the plain mode (DetectorDir.heads), at block
    (its matrix) unless the evidence is packed or chunks, which leave the head unused."""

    def __init__(self, directory: Union[str, DetectorDir], granularity: str = "sentence", device: str = "cpu",
                 parser: ParserConfig = ParserConfig(), **mode):
        opened = DetectorDir.open(directory)  # a path: opened here, once, its members with it
        plain = ScoreMode(mode.get("score", E), mode.get("mc_dropout", 0)).plain
        self.heads = opened.heads(plain)
        if mode.get("evidence") in (PACKED, CHUNKS):  # a Conv head reads the block x sentence matrix, not passages
            self.heads = dict.fromkeys(self.heads)
        super().__init__([DocumentScorer(m, granularity, CONV if head else ZS, head, device=device, parser=parser,
                                         **{**mode, "evidence": BLOCK} if head else mode)
                          for m, head in zip(opened.members, self.heads.values())])
        self.directory = opened.directory
        self.parser = self.members[0].parser

    @given_rows
    def scored(self, rows: Sequence[tuple[str, str]]) -> list:
        """The members' results joined (EnsembleScorer.scored), each saying how its score was made ('conv+zs' where a
        member scored by its Conv head)."""
        how = "conv+zs" if any(self.heads.values()) else ZS
        return [r if isinstance(r, Unscorable) else {**r, "aggregation": how} for r in super().scored(rows)]

    def pair_scores(self, pairs: Iterable[tuple[str, str]]) -> list:
        """Each (premise, hypothesis)'s members' scores joined as a row's are (mean log-odds), or the first member's
        Unscorable where none could score it; a pair whose texts no model can read (unscorable.unscorable_text, the
        rule of every other entry point) gets its Unscorable, never a member's guess."""
        return checked_rows(pairs, PAIR_FIELDS, self._joined_pair_scores)

    def _joined_pair_scores(self, pairs: list[tuple[str, str]]) -> list:
        by_member = [m.pair_scores(pairs) for m in self.members]
        return [ensemble_score(good) if (good := [s for s in scores if not isinstance(s, Unscorable)]) else scores[0]
                for scores in zip(*by_member)]
