"""Named-entity sentences for the NER recast: CoNLL-2003 columns and the GMB/Kaggle CSV, tags normalised to BIO."""
from __future__ import annotations

import csv
import re
from typing import Iterable, Iterator, Optional

from entailgen.schemas.sources import NerSentence
from entailgen.transforms.io.base import ReaderConfig, Reject, checked_text, dead, decode, physical_lines, unit_id

DOCSTART = b"-DOCSTART-"
TAG = re.compile(r"^(?:O|[BI]-\S+)$")
GMB_COLUMNS = ("sentence", "word", "pos", "tag")  # "Sentence #,Word,POS,Tag", the Kaggle ner_dataset.csv header

Block = list[tuple[int, bytes]]  # (line number, raw line) of one sentence


def to_bio(tags: list[str]) -> list[str]:
    """IOB1 or IOB2 tags as BIO (IOB2): an I-X that does not continue an X entity begins one, as IOB1 means it."""
    bio: list[str] = []
    for tag in tags:
        if not TAG.match(tag):
            raise Reject("BadTag", f"tag {tag[:40]!r} is not O, B-TYPE or I-TYPE")
        previous = bio[-1] if bio else "O"
        if tag.startswith("I-") and (previous == "O" or previous[2:] != tag[2:]):
            tag = "B-" + tag[2:]
        bio.append(tag)
    return bio


def ner_sentence(tokens: list[str], tags: list[str], pos: list[str], source: str, source_id: str,
                 config: ReaderConfig) -> NerSentence:
    """The NerSentence of a block's tokens, entity tags and POS tags, checked like any text."""
    checked_text(" ".join(tokens), "sentence", config)
    if not all(tokens):
        raise Reject("EmptyText", f"token {tokens.index('') + 1} is empty")
    return NerSentence(source_id, source, tokens, to_bio(tags), pos)


def conll_blocks(lines: Iterable[bytes]) -> Iterator[Block]:
    """Sentence blocks of a CoNLL file: blank lines separate them, -DOCSTART- lines mark documents and are no unit."""
    block: Block = []
    for number, raw in physical_lines(lines):
        if not raw.strip() or raw.lstrip().startswith(DOCSTART):
            if block:
                yield block
            block = []
        else:
            block.append((number, raw))
    if block:
        yield block


def conll_sentence(block: Block, source: str, source_id: str, config: ReaderConfig) -> NerSentence:
    """token POS chunk NER per line (space or tab separated), the CoNLL-2003 layout."""
    tokens, tags, pos = [], [], []
    for number, raw in block:
        columns = decode(raw, config).split()
        if len(columns) != 4:
            raise Reject("WrongColumnCount", f"line {number} has {len(columns)} columns, want token POS chunk NER")
        tokens.append(columns[0])
        pos.append(columns[1])
        tags.append(columns[3])
    return ner_sentence(tokens, tags, pos, source, source_id, config)


def read_conll2003(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A NerSentence or DeadLetter per sentence block; source id names the block's first line."""
    for block in conll_blocks(lines):
        source_id = unit_id(source, block[0][0])
        try:
            yield conll_sentence(block, source, source_id, config)
        except Reject as reject:
            yield dead(source, source_id, reject, b"\n".join(raw for _, raw in block))


def csv_row(text: str) -> list[str]:
    """The fields of one CSV line."""
    try:
        return next(csv.reader([text]), [])
    except csv.Error as exc:
        raise Reject("MalformedCsv", str(exc))


def lenient_row(raw: bytes) -> list[str]:
    """The fields of a line for grouping rows only (undecodable bytes replaced; checks come later, per block)."""
    text = raw.decode("utf-8", "replace").lstrip("\ufeff")
    try:
        return next(csv.reader([text]), [])
    except csv.Error:
        return text.split(",")


def gmb_header(raw: bytes) -> Optional[dict[str, int]]:
    """Column positions from a GMB header line (by name, any order, extra columns allowed), or None if not one."""
    names = [name.strip().lower() for name in lenient_row(raw)]
    positions = {}
    for column in GMB_COLUMNS:
        found = [i for i, name in enumerate(names) if name.startswith(column)]
        if not found:
            return None
        positions[column] = found[0]
    return positions


def gmb_marker(raw: bytes, sentence_column: int) -> str:
    """The sentence column of a row ("Sentence: 12" on a sentence's first row, empty on the rest)."""
    row = lenient_row(raw)
    return row[sentence_column].strip() if len(row) > sentence_column else ""


def gmb_blocks(lines: Iterable[bytes]) -> Iterator[tuple[Block, dict[str, int]]]:
    """Sentence blocks of a GMB csv: a new non-empty sentence value starts one, a blank line ends one."""
    block: Block = []
    columns = dict(zip(GMB_COLUMNS, range(4)))
    current = None
    for number, raw in physical_lines(lines):
        header = gmb_header(raw) if number == 1 else None
        if header:
            columns = header
            continue
        marker = gmb_marker(raw, columns["sentence"]) if raw.strip() else None
        if marker is None or (marker and marker != current):
            if block:
                yield block, columns
            block, current = [], marker
        if marker is not None:
            block.append((number, raw))
    if block:
        yield block, columns


def gmb_sentence(block: Block, columns: dict[str, int], source: str, source_id: str, config: ReaderConfig
                 ) -> NerSentence:
    """Word, POS and Tag of each row of a block; its first row must carry the sentence marker."""
    tokens, tags, pos = [], [], []
    width = max(columns.values()) + 1
    for number, raw in block:
        row = csv_row(decode(raw, config))
        if len(row) < width:
            raise Reject("WrongColumnCount", f"line {number} has {len(row)} columns, want at least {width}")
        if not tokens and not row[columns["sentence"]].strip():
            raise Reject("MissingField", f"line {number} continues a sentence but none began (no 'Sentence: N')")
        tokens.append(row[columns["word"]].strip())
        pos.append(row[columns["pos"]].strip())
        tags.append(row[columns["tag"]].strip())
    return ner_sentence(tokens, tags, pos, source, source_id, config)


def read_gmb(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A NerSentence or DeadLetter per sentence; the header line (if any) is no unit."""
    for block, columns in gmb_blocks(lines):
        source_id = unit_id(source, block[0][0])
        try:
            yield gmb_sentence(block, columns, source, source_id, config)
        except Reject as reject:
            yield dead(source, source_id, reject, b"\n".join(raw for _, raw in block))
