"""Export RtePairs in the Diverse NLI Collection's JSON layout (decompositional-semantics-initiative/DNC): a data
file (recast_<phenomenon>_data.json) and a metadata file (recast_<phenomenon>_metadata.json) joined on pair-id."""
from __future__ import annotations

import json
from typing import Iterable, Mapping, Optional

import apache_beam as beam

from entailgen.dataset.shard import write_file
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, RtePair

LABEL_SET = [ENTAILED, NOT_ENTAILED]
# The DNC's "type-of-inference" values for our phenomena (its release spells them so).
TYPE_OF_INFERENCE = {"ner": "NER", "factuality": "Factuality", "sentiment": "Sentiment", "relation": "KG"}
# The DNC's file names where they differ from the phenomenon's (recast_kg_relations_data.json).
FILE_NAMES = {"relation": "kg_relations"}


def pair_id(pair: RtePair) -> int:
    """A stable integer pair-id from the content id: its first 52 bits, exact in any JSON reader (JavaScript too)."""
    return int(pair.id[:13], 16)


def to_dnc(pairs: Iterable[RtePair]) -> list[dict]:
    """DNC data rows (context, hypothesis, label, label-set, binary-label, split, type-of-inference, pair-id),
    ordered by pair-id so the same pairs give the same file."""
    rows = [{
        "context": p.premise,
        "hypothesis": p.hypothesis,
        "label": p.label,
        "label-set": list(LABEL_SET),
        "binary-label": p.label == ENTAILED,
        "split": p.split,
        "type-of-inference": TYPE_OF_INFERENCE.get(p.phenomenon, p.phenomenon),
        "pair-id": pair_id(p),
    } for p in pairs]
    return sorted(rows, key=lambda r: r["pair-id"])


def to_dnc_metadata(pairs: Iterable[RtePair], corpus_licenses: Optional[Mapping[str, str]] = None) -> list[dict]:
    """DNC metadata rows (pair-id, corpus, corpus-sent-id, corpus-license, creation-approach, misc) for the same
    pairs; misc keeps our template, content id and provenance (if any) so a row can be traced back."""
    licenses = corpus_licenses or {}
    rows = [{
        "pair-id": pair_id(p),
        "corpus": p.source,
        "corpus-sent-id": p.source_id,
        "corpus-license": licenses.get(p.source),
        "creation-approach": "automatic",
        "misc": {"template": p.template, "id": p.id,
                 **({"provenance": json.loads(p.provenance)} if p.provenance else {})},
    } for p in pairs]
    return sorted(rows, key=lambda r: r["pair-id"])


def write_dnc(output: str, phenomenon: str, pairs: Iterable[RtePair]) -> list[dict]:
    """Write one phenomenon's DNC data and metadata files under output/dnc/; returns their manifest infos."""
    pairs = list(pairs)
    infos = []
    for kind, rows in (("data", to_dnc(pairs)), ("metadata", to_dnc_metadata(pairs))):
        relative = f"dnc/recast_{FILE_NAMES.get(phenomenon, phenomenon)}_{kind}.json"
        data = (json.dumps(rows, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
        infos.append(write_file(output, relative, data, rows=len(rows)))
    return infos


class WriteDnc(beam.PTransform):
    """Split RtePairs -> the DNC's per-phenomenon JSON files, so existing DNC tooling reads our recast sets."""

    def __init__(self, output: str):
        super().__init__()
        self.output = output

    def expand(self, pairs):
        output = self.output
        return (pairs | "ByPhenomenon" >> beam.Map(lambda p: (p.phenomenon, p)) | "Group" >> beam.GroupByKey()
                | "Write" >> beam.FlatMapTuple(lambda phenomenon, ps: write_dnc(output, phenomenon, ps)))
