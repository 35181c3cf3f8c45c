"""The Diverse NLI Collection's data files (e.g. recast_kg_relations_data.json): a JSON array of pairs."""
from __future__ import annotations

from typing import Iterable, Iterator

from entailgen.schemas.records import ENTAILED, NOT_ENTAILED
from entailgen.schemas.sources import DncPair
from entailgen.transforms.io.base import ReaderConfig, Reject, checked_text, checked_token, dead, field, unit_id
from entailgen.transforms.io.jsonstream import array_items

DNC_LABELS = {ENTAILED: ENTAILED, NOT_ENTAILED: NOT_ENTAILED, "not-entailment": NOT_ENTAILED,
              "entailment": ENTAILED}


def dnc_label(item: dict) -> str:
    """The 2-way label from 'label' (entailed / not-entailed), checked against 'binary-label' when both are given."""
    label = DNC_LABELS.get(str(field(item, "label")).strip().lower())
    if label is None:
        raise Reject("BadLabel", f"label {str(item['label'])[:20]!r} is not entailed / not-entailed")
    binary = item.get("binary-label")
    if binary is not None and (not isinstance(binary, bool) or binary != (label == ENTAILED)):
        raise Reject("BadLabel", f"binary-label {binary!r:.20} disagrees with label {label!r}")
    return label


def item_id(source: str, item: object, index: str) -> str:
    """The source id of an item: its pair-id, else its 0-based position in brackets ("kg.json:[3]")."""
    pair_id = item.get("pair-id") if isinstance(item, dict) else None
    return unit_id(source, f"[{index}]" if pair_id is None else checked_token(str(pair_id), "pair-id"))


def dnc_pair(item: object, source_id: str, source: str, config: ReaderConfig) -> DncPair:
    """context, hypothesis, label (+ binary-label, type-of-inference)."""
    if not isinstance(item, dict):
        raise Reject("NotAnObject", f"a JSON {type(item).__name__}, not an object")
    kind = item.get("type-of-inference")
    return DncPair(source_id, source,
                   context=checked_text(field(item, "context"), "context", config),
                   hypothesis=checked_text(field(item, "hypothesis"), "hypothesis", config),
                   label=dnc_label(item),
                   type_of_inference=kind if isinstance(kind, str) else "")


def read_dnc_json(chunks: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A DncPair or DeadLetter per item of a DNC data file, streamed (the KG relations file is large)."""
    for member in array_items(chunks, config.max_unit_chars):
        where = f"[{member.key}]" if member.key is not None else f"@{member.offset}"  # a break: its offset
        if member.error is not None:
            yield dead(source, unit_id(source, where), member.error, member.raw)
            continue
        source_id = unit_id(source, where)
        try:
            source_id = item_id(source, member.value, member.key)
            yield dnc_pair(member.value, source_id, source, config)
        except Reject as reject:
            yield dead(source, source_id, reject, member.raw)
