"""Documents for the claims family: FactCC {id,text}, CNN/DM {article,highlights} and XSum {document,summary} JSON
Lines, labelled consistency sets passed through, and plain text with one document per blank-line-separated block."""
from __future__ import annotations

import dataclasses
import itertools
from typing import Iterable, Iterator

from entailgen.schemas.records import CORRECT, ENTAILED, INCORRECT, NOT_ENTAILED
from entailgen.schemas.sources import Document, LabelledClaim
from entailgen.transforms.io.base import (ReaderConfig, Reject, checked_text, checked_token, dead, decode, field,
                                          json_object, physical_lines, read_line_units, unit_id)

DOCUMENT_FIELDS = ("text", "article", "document")  # FactCC, CNN/DailyMail, XSum
SUMMARY_FIELDS = ("highlights", "summary")  # CNN/DailyMail, XSum
CLAIM_LABELS = {"correct": CORRECT, "incorrect": INCORRECT, ENTAILED: CORRECT, NOT_ENTAILED: INCORRECT,
                "consistent": CORRECT, "inconsistent": INCORRECT}


def document_config(config: ReaderConfig) -> ReaderConfig:
    """The reader options with the document length limit in place of the sentence one."""
    return dataclasses.replace(config, max_chars=config.max_document_chars)


def claim_label(value: object) -> str:
    """CORRECT / INCORRECT from FactCC's labels (or entailed / not-entailed, consistent / inconsistent)."""
    label = CLAIM_LABELS.get(value.strip().lower()) if isinstance(value, str) else None
    if label is None:
        raise Reject("BadLabel", f"label {str(value)[:20]!r} is not CORRECT or INCORRECT")
    return label


def _dataset_id(record: dict):
    value = record.get("id")
    return None if value is None else checked_token(str(value), "id")


def document_record(text: str, source: str, source_id: str, config: ReaderConfig):
    """A LabelledClaim when the line has a claim (passed through), else a Document with its summary if any."""
    record = json_object(text)
    long = document_config(config)
    document = checked_text(field(record, *DOCUMENT_FIELDS), "document", long)
    if "claim" in record:
        return LabelledClaim(source_id, source, document, checked_text(field(record, "claim"), "claim", config),
                             claim_label(field(record, "label")), _dataset_id(record))
    summary = next((record[name] for name in SUMMARY_FIELDS if record.get(name) is not None), None)
    summary = None if summary is None else checked_text(summary, "summary", long)
    return Document(source_id, source, document, summary, _dataset_id(record))


def read_documents_jsonl(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A Document or LabelledClaim per JSON line, whichever of the supported layouts it is in."""
    return read_line_units(lines, source, config, lambda text, source_id: document_record(
        text, source, source_id, config))


def read_documents_text(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A Document per block of non-blank lines (id: file and first line); lines keep their breaks inside it."""
    long = document_config(config)
    block: list[tuple[int, bytes]] = []
    for number, raw in itertools.chain(physical_lines(lines), [(None, b"")]):
        if raw.strip():
            block.append((number, raw))
            continue
        if not block:
            continue
        source_id = unit_id(source, block[0][0])
        raw_block = b"\n".join(r for _, r in block)
        block = []
        try:
            yield Document(source_id, source, checked_text(decode(raw_block, config), "document", long))
        except Reject as reject:
            yield dead(source, source_id, reject, raw_block)


def read_documents(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """documents-jsonl when the first non-blank line is a JSON object, else documents-text (the claims default)."""
    lines = iter(lines)
    head: list[bytes] = []
    for line in lines:
        head.append(line)
        if line.strip():
            break
    first = head[-1].strip() if head else b""
    reader = read_documents_jsonl if first.startswith(b"{") else read_documents_text
    return reader(itertools.chain(head, lines), source, config)
