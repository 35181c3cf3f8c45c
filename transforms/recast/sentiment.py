"""Sentiment recast (Poliak 2020 ch. 3): a labelled review becomes the premise 'When asked about the Item, Name said
"Review"' with the hypotheses "Name liked the Item" / "Name did not like the Item", one entailed, one not."""
from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Iterable, Optional

import apache_beam as beam

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import RtePair
from entailgen.schemas.sources import Review
from entailgen.transforms.recast.common import DEAD, RecastError, RecastFn, rte_pair

PHENOMENON = "sentiment"
STAGE = "recast_sentiment"
ITEMS = ("product", "movie", "restaurant")
PREMISE = 'When asked about the {item}, {name} said "{review}"'
LIKED = ("sentiment/liked", "{name} liked the {item}")
DID_NOT_LIKE = ("sentiment/did-not-like", "{name} did not like the {item}")
FIRST_NAMES = Path(__file__).with_name("first_names.tsv")


@dataclass(frozen=True)
class SentimentConfig:
    """The run seed (mixed with each review's id to draw its speaker's name) and the first-name frequency list."""

    seed: int = 0
    names_path: Optional[str] = None  # name<TAB>count lines; None: the shipped first_names.tsv


@dataclass(frozen=True)
class NameTable:
    """First names with cumulative frequencies, so a draw picks a name in proportion to how common it is."""

    names: tuple[str, ...]
    cumulative: tuple[int, ...]

    @classmethod
    def of(cls, counts: Iterable[tuple[str, int]]) -> "NameTable":
        """From (name, count) pairs; counts must be positive."""
        names, cumulative, total = [], [], 0
        for name, count in counts:
            if count <= 0 or not name:
                raise ValueError(f"first name {name!r} needs a positive count, got {count}")
            total += count
            names.append(name)
            cumulative.append(total)
        if not names:
            raise ValueError("the first-name table is empty")
        return cls(tuple(names), tuple(cumulative))

    def draw(self, rng: random.Random) -> str:
        """One name, with probability count / total."""
        return self.names[bisect.bisect_right(self.cumulative, rng.randrange(self.cumulative[-1]))]


def load_first_names(path: Optional[str] = None) -> NameTable:
    """Read a name<TAB>count file ('#' lines are comments), by default the shipped first_names.tsv."""
    rows = []
    for line in Path(path or FIRST_NAMES).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, count = line.split("\t")
            rows.append((name.strip(), int(count)))
    return NameTable.of(rows)


def recast_sentiment(review: Review, names: NameTable, config: SentimentConfig = SentimentConfig()) -> list[RtePair]:
    """Both hypotheses about one review under one premise (one speaker, drawn per review): the one matching the
    review's label entailed, so hypothesis words alone cannot predict the label."""
    item = review.item.strip().lower()
    if item not in ITEMS:
        raise RecastError(f"item {review.item!r} is not one of {', '.join(ITEMS)}")
    if review.label not in (0, 1):
        raise RecastError(f"sentiment label {review.label!r} is not 1 (positive) or 0 (negative)")
    text = review.text.strip()
    if not text:
        raise RecastError("empty review")
    name = names.draw(seeded_rng(config.seed, content_id(review.source, review.source_id, text), "sentiment-name"))
    premise = PREMISE.format(item=item, name=name, review=text)
    liked = review.label == 1
    return [rte_pair(premise, hypothesis.format(name=name, item=item), entailed, PHENOMENON, template, review.source,
                     review.source_id)
            for (template, hypothesis), entailed in ((LIKED, liked), (DID_NOT_LIKE, not liked))]


class RecastSentiment(beam.PTransform):
    """Review -> RtePair (main 'pairs') and DeadLetter ('dead'); the name table (a few KB) ships with the DoFn."""

    def __init__(self, config: SentimentConfig = SentimentConfig()):
        super().__init__()
        self.config = config

    def expand(self, reviews):
        recast = partial(recast_sentiment, names=load_first_names(self.config.names_path), config=self.config)
        return reviews | "Recast" >> beam.ParDo(RecastFn(STAGE, recast)).with_outputs(DEAD, main="pairs")
