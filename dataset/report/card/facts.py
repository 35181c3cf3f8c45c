"""What every section of a dataset card is rendered from, and the facts about a dataset more than one section reads."""
from __future__ import annotations

from dataclasses import dataclass

from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.records import RECORD_TYPES

# Arrow type names as the Hugging Face card writes them (dataset_info features, the fields table).
HF_DTYPES = {"string": "string", "int64": "int64", "double": "float64", "bool": "bool"}


@dataclass(frozen=True)
class CardFacts:
    """A card's inputs: the manifest, the statistics of one pass over the rows and dead letters, each input's licence,
    and the sha256 of the embedded samples (an input with one of them gets the 'tiny sample' warning)."""

    manifest: dict
    stats: dict
    licences: dict
    sample_digests: frozenset = frozenset()


def split_names(manifest: dict) -> list[str]:
    """The dataset's splits in the order the run named them (train, dev, test), then any others."""
    named = [name for name, _ in manifest["config"]["splits"]["ratios"] if name in manifest["splits"]]
    return named + sorted(set(manifest["splits"]) - set(named))


def has_arcs(record_type: str) -> bool:
    """Whether rows of this type carry dependency arcs, so a parser made them and arc sections apply."""
    cls = RECORD_TYPES.get(record_type)
    return cls is not None and "arcs" in arrow_schema(cls).names
