"""Split assignment by hash of the source context, so one context (premise, source sentence) never spans two splits."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import apache_beam as beam

from entailgen.schemas.ids import unit_hash
from entailgen.schemas.records import with_split


@dataclass(frozen=True)
class SplitConfig:
    """Named split ratios (normalised to sum to 1) and the seed that mixes into the hash."""

    ratios: tuple[tuple[str, float], ...] = (("train", 0.9), ("dev", 0.05), ("test", 0.05))
    seed: int = 0

    def __post_init__(self):
        names = [n for n, _ in self.ratios]
        if not self.ratios or not all(math.isfinite(r) and r >= 0 for _, r in self.ratios) \
                or sum(r for _, r in self.ratios) <= 0:  # nan fails every comparison: it sent all to the last
            raise ValueError(f"split ratios must be finite, non-negative and sum to more than 0: {self.ratios}")
        if len(set(names)) != len(names):
            raise ValueError(f"split names must be unique: {names}")

    @property
    def names(self) -> tuple[str, ...]:
        """Split names in the order given."""
        return tuple(n for n, _ in self.ratios)

    @classmethod
    def parse(cls, spec: str, seed: int = 0) -> "SplitConfig":
        """From 'train=0.9,dev=0.05,test=0.05' (the CLI's --splits)."""
        try:
            ratios = tuple((name.strip(), float(value)) for name, value in
                           (part.split("=", 1) for part in spec.split(",") if part.strip()))
        except ValueError:
            raise ValueError(f"--splits wants name=ratio,... (e.g. train=0.9,dev=0.05,test=0.05), got {spec!r}")
        if not all(math.isfinite(r) for _, r in ratios):
            raise ValueError(f"--splits ratios must be finite numbers, got {spec!r}")
        if ratios and abs(sum(r for _, r in ratios) - 1) > 1e-6:
            raise ValueError(f"--splits ratios must sum to 1, got {sum(r for _, r in ratios):g} in {spec!r}")
        return cls(ratios, seed)


def assign_split(context: str, config: SplitConfig) -> str:
    """The split of a context: a stable hash position on the cumulative ratio line."""
    total = sum(r for _, r in config.ratios)
    point = unit_hash("split", config.seed, context) * total
    cumulative = 0.0
    for name, ratio in config.ratios:
        cumulative += ratio
        if point < cumulative:
            return name
    return next(name for name, ratio in reversed(config.ratios) if ratio > 0)


class AssignSplit(beam.PTransform):
    """Set each record's split from its source context."""

    def __init__(self, config: SplitConfig, context: Callable[[object], str]):
        super().__init__()
        self.config = config
        self.context = context

    def expand(self, records):
        config, context = self.config, self.context
        return records | beam.Map(lambda r: with_split(r, assign_split(context(r), config)))
