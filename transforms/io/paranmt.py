"""Paraphrase pairs (x, h*) for the dae family: ParaNMT-style TSV or JSON Lines."""
from __future__ import annotations

from typing import Iterable, Iterator

from entailgen.schemas.sources import ParaphrasePair
from entailgen.transforms.io.base import (ReaderConfig, Reject, checked_text, field, json_object, read_line_units,
                                          unit_id)


def paraphrase_columns(text: str, source: str, source_id: str, config: ReaderConfig) -> ParaphrasePair:
    """x<TAB>h*[<TAB>score...]: ParaNMT-50M's layout; a third column that is not a score means a stray tab."""
    columns = text.split("\t")
    if len(columns) < 2:
        raise Reject("WrongColumnCount", f"{len(columns)} column, want x<TAB>h*[<TAB>score...]")
    for position, score in enumerate(columns[2:], 3):
        try:
            float(score)
        except ValueError:
            raise Reject("WrongColumnCount", f"column {position} ({score[:40]!r}) is not a score: a tab inside a text?")
    x, gold = checked_text(columns[0], "x", config), checked_text(columns[1], "h*", config)
    if not any(char.isalpha() for char in gold):
        raise Reject("BadField", f"h* {gold[:20]!r} has no letters: a label, not a paraphrase "
                                 "(a sentiment-uci file? x<TAB>h* wanted)")
    return ParaphrasePair(source_id, source, x, gold)


def paraphrase_record(text: str, source: str, source_id: str, config: ReaderConfig) -> ParaphrasePair:
    """{"text"|"source": x, "gold"|"paraphrase": h*, "id"?}; the dataset's id, when given, names the pair."""
    record = json_object(text)
    if record.get("id") is not None:
        source_id = unit_id(source, record["id"])
    return ParaphrasePair(source_id, source, checked_text(field(record, "text", "source"), "text", config),
                          checked_text(field(record, "gold", "paraphrase"), "gold", config))


def read_paraphrase_tsv(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A ParaphrasePair per TSV line."""
    return read_line_units(lines, source, config, lambda text, source_id: paraphrase_columns(
        text, source, source_id, config))


def read_paraphrase_jsonl(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A ParaphrasePair per JSON line."""
    return read_line_units(lines, source, config, lambda text, source_id: paraphrase_record(
        text, source, source_id, config))
