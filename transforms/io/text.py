"""Plain sentences to parse: one per line (`text`) or a "text" field per JSON line (`text-jsonl`)."""
from __future__ import annotations

from typing import Iterable, Iterator

from entailgen.schemas.sources import SourceText
from entailgen.transforms.io.base import ReaderConfig, checked_text, field, json_object, read_line_units


def read_text(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A SourceText (role "text") per line: the simplest corpus, a sentence per line."""
    return read_line_units(lines, source, config, lambda text, source_id: SourceText(
        checked_text(text, "line", config), source, source_id, "text"))


def read_text_jsonl(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A SourceText per JSON line with a "text" field, for corpora exported as JSON Lines."""
    return read_line_units(lines, source, config, lambda text, source_id: SourceText(
        checked_text(field(json_object(text), "text"), "text", config), source, source_id, "text"))
