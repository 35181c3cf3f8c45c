"""Export document rows in FactCC's JSONL layout (id, text, claim, label, extraction_span, backtranslation,
augmentation, augmentation_span, noise), one file per split, so FactCC and SummaC training code reads them unchanged."""
from __future__ import annotations

import json
from typing import Iterable

import apache_beam as beam

from entailgen.dataset.shard import write_file
from entailgen.schemas.records import ClaimExample

# FactCC names its augmentations after its transformation classes; sampled and back-translated claims have none.
AUGMENTATION = {"pronoun_swap": "PronounSwap", "entity_swap": "EntitySwap", "number_swap": "NumberSwap",
                "date_swap": "DateSwap", "negation": "NegateSentences"}


def to_factcc(row: ClaimExample) -> dict:
    """One FactCC row; spans are [start, end) characters (FactCC's own are spaCy token indices)."""
    return {
        "id": row.id,
        "text": row.premise,
        "claim": row.claim,
        "label": row.label,
        "extraction_span": row.extraction_span,
        "backtranslation": row.backtranslation,
        "augmentation": AUGMENTATION.get(row.transformation),
        "augmentation_span": row.claim_span,
        "noise": row.noise,
    }


def write_factcc(output: str, split: str, rows: Iterable[ClaimExample]) -> dict:
    """Write one split's rows, ordered by id, to factcc/data-<split>.jsonl; returns its manifest info."""
    ordered = sorted(rows, key=lambda r: r.id)
    data = "".join(json.dumps(to_factcc(r), ensure_ascii=False) + "\n" for r in ordered).encode("utf-8")
    return write_file(output, f"factcc/data-{split}.jsonl", data, rows=len(ordered))


class WriteFactcc(beam.PTransform):
    """Split document rows (block rows left out) -> FactCC JSONL files, one per split."""

    def __init__(self, output: str):
        super().__init__()
        self.output = output

    def expand(self, rows):
        output = self.output
        return (rows | "DocumentRows" >> beam.Filter(lambda r: r.block_index is None)
                | "BySplit" >> beam.Map(lambda r: (r.split, r)) | "Group" >> beam.GroupByKey()
                | "Write" >> beam.MapTuple(lambda split, rs: write_factcc(output, split, rs)))
