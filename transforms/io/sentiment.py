"""Sentiment-labelled sentences for the sentiment recast: UCI "Sentiment Labelled Sentences" and a text,label CSV."""
from __future__ import annotations

import csv
import itertools
from typing import Iterable, Iterator, Optional

from entailgen.schemas.sources import Review
from entailgen.transforms.io.base import ReaderConfig, Reject, checked_text, read_line_units

# The UCI files name what was reviewed: amazon_cells_labelled.txt, imdb_labelled.txt, yelp_labelled.txt.
UCI_ITEMS = (("amazon", "product"), ("imdb", "movie"), ("yelp", "restaurant"))
LABELS = {"0": 0, "1": 1, "negative": 0, "positive": 1, "neg": 0, "pos": 1}
CSV_COLUMNS = ("text", "label", "item")


def item_of(source: str, config: ReaderConfig) -> str:
    """What the reviews of a file are about, from its name; else the configured default."""
    name = source.lower()
    return next((item for key, item in UCI_ITEMS if key in name), config.default_item)


def sentiment_label(value: str) -> int:
    """1 positive, 0 negative, from 0/1 or positive/negative."""
    label = LABELS.get(value.strip().lower())
    if label is None:
        raise Reject("BadLabel", f"label {value[:20]!r} is not 0/1 (or negative/positive)")
    return label


def uci_review(text: str, source: str, source_id: str, item: str, config: ReaderConfig) -> Review:
    """sentence<TAB>0|1; the label is the last column, so a tab inside the sentence does no harm."""
    columns = text.rsplit("\t", 1)
    if len(columns) != 2:
        raise Reject("WrongColumnCount", "no tab: want sentence<TAB>0|1")
    return Review(source_id, source, checked_text(columns[0], "sentence", config), sentiment_label(columns[1]), item)


def read_sentiment_uci(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A Review per line of a UCI sentiment file; the item comes from the file name."""
    item = item_of(source, config)
    return read_line_units(lines, source, config, lambda text, source_id: uci_review(
        text, source, source_id, item, config))


def csv_header(raw: bytes) -> Optional[tuple[dict[str, int], int]]:
    """(positions of text, label and optional item; column count) from a header line, or None if it is not one."""
    try:
        names = [n.strip().lower() for n in next(csv.reader([raw.decode("utf-8", "replace").lstrip("\ufeff")]), [])]
    except csv.Error:
        return None
    if "text" not in names or "label" not in names:
        return None
    return {column: names.index(column) for column in CSV_COLUMNS if column in names}, len(names)


def csv_review(text: str, source: str, source_id: str, layout: tuple[dict[str, int], int], config: ReaderConfig
               ) -> Review:
    """A Review from a CSV row; an empty or absent item column means the configured default."""
    columns, width = layout
    try:
        row = next(csv.reader([text]), [])
    except csv.Error as exc:
        raise Reject("MalformedCsv", str(exc))
    if not max(columns["text"], columns["label"]) < len(row) <= width:
        raise Reject("WrongColumnCount", f"{len(row)} columns, want {width} ({','.join(columns)})")
    item = row[columns["item"]].strip().lower() if "item" in columns and len(row) > columns["item"] else ""
    return Review(source_id, source, checked_text(row[columns["text"]], "text", config),
                  sentiment_label(row[columns["label"]]), item or config.default_item)


def read_sentiment_csv(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A Review per row of a text,label[,item] CSV; the header line (if any) is no unit."""
    lines = iter(lines)
    first = next(lines, b"")
    layout = csv_header(first)
    rows = lines if layout else itertools.chain([first], lines)
    return read_line_units(rows, source, config, lambda text, source_id: csv_review(
        text, source, source_id, layout or (dict(zip(CSV_COLUMNS, range(3))), 3), config),
        first_number=2 if layout else 1)
