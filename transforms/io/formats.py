"""The reader of each input format, and the format of a file told from its name and first line."""
from __future__ import annotations

import itertools
import json
import posixpath
import re
from typing import Callable, Iterable, Iterator, Optional

from apache_beam.io.filesystems import FileSystems

from entailgen.dataset.manifest import is_dataset
from entailgen.schemas.sources import (DatasetRow, DncPair, Document, FactualityAnnotation, NerSentence, NliPair,
                                       ParaphrasePair, Review, SourceText)
from entailgen.transforms.io.base import ReaderConfig
from entailgen.transforms.io.dataset import DATASET, read_dataset_rows
from entailgen.transforms.io.dnc import read_dnc_json
from entailgen.transforms.io.documents import read_documents, read_documents_jsonl, read_documents_text
from entailgen.transforms.io.encoding import first_line, utf8_chunks
from entailgen.transforms.io.ner import TAG, read_conll2003, read_gmb
from entailgen.transforms.io.nli import read_nli_jsonl
from entailgen.transforms.io.paranmt import read_paraphrase_jsonl, read_paraphrase_tsv
from entailgen.transforms.io.sentiment import UCI_ITEMS, read_sentiment_csv, read_sentiment_uci
from entailgen.transforms.io.text import read_text, read_text_jsonl
from entailgen.transforms.io.uds import read_factuality_jsonl, read_uds_json

Reader = Callable[[Iterable[bytes], str, ReaderConfig], Iterator]

FORMATS: dict[str, Reader] = {
    "text": read_text,
    "text-jsonl": read_text_jsonl,
    "paraphrase-tsv": read_paraphrase_tsv,
    "paraphrase-jsonl": read_paraphrase_jsonl,
    "conll2003": read_conll2003,
    "gmb": read_gmb,
    "uds-json": read_uds_json,
    "factuality-jsonl": read_factuality_jsonl,
    "sentiment-uci": read_sentiment_uci,
    "sentiment-csv": read_sentiment_csv,
    "nli-jsonl": read_nli_jsonl,
    "dnc-json": read_dnc_json,
    "documents": read_documents,
    "documents-jsonl": read_documents_jsonl,
    "documents-text": read_documents_text,
    DATASET: read_dataset_rows,
}
# The source record each format's reader makes: a family that cannot use that type cannot use the file.
FORMAT_RECORDS: dict[str, type] = {
    "text": SourceText, "text-jsonl": SourceText, "paraphrase-tsv": ParaphrasePair, "paraphrase-jsonl": ParaphrasePair,
    "conll2003": NerSentence, "gmb": NerSentence, "uds-json": FactualityAnnotation,
    "factuality-jsonl": FactualityAnnotation, "sentiment-uci": Review, "sentiment-csv": Review, "nli-jsonl": NliPair,
    "dnc-json": DncPair, "documents": Document, "documents-jsonl": Document, "documents-text": Document,
    DATASET: DatasetRow,
}
FOLDERS = frozenset({DATASET})  # read from the folder's path (its manifest and shards), not fed its bytes
CHUNKED = frozenset({"uds-json", "dnc-json"})  # fed fixed-size byte chunks, not lines (the UDS file is a single 200 MB line)
COMPRESSED = (".gz", ".bz2", ".deflate", ".zst", ".lzma")  # Beam's FileSystems.open decompresses these
PEEK_BYTES = 1 << 16
HEAD_LIMIT = 1 << 24  # detection reads the first line to its end, up to this many bytes (UDS files are one line)

# A JSON line's format, by the first of these fields it has.
JSONL_FIELDS = (("sentence1", "nli-jsonl"), ("context", "nli-jsonl"), ("premise", "nli-jsonl"),
                ("predicate_index", "factuality-jsonl"), ("gold", "paraphrase-jsonl"),
                ("paraphrase", "paraphrase-jsonl"), ("claim", "documents-jsonl"), ("article", "documents-jsonl"),
                ("document", "documents-jsonl"), ("text", "text-jsonl"))


def reader_for(fmt: str) -> Reader:
    """The reader of a format name; a clear error for an unknown one."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; choose one of {', '.join(sorted(FORMATS))}")
    return FORMATS[fmt]


def _json_fields(head: str) -> list[str]:
    """The keys of the JSON object on a line ([] if it is not one)."""
    try:
        value = json.loads(head)
    except ValueError:
        return []
    return list(value) if isinstance(value, dict) else []


def _csv_names(head: str) -> list[str]:
    """The lower-cased column names of a CSV header line."""
    return [name.strip().strip('"').lower() for name in head.split(",")]


def detect_format_of(name: str, head: bytes) -> str:
    """The format of a file from its name and its first line (ValueError if neither tells)."""
    base = posixpath.basename(name.replace("\\", "/")).lower()
    for suffix in COMPRESSED:
        base = base[: -len(suffix)] if base.endswith(suffix) else base
    ext = posixpath.splitext(base)[1]
    line = head.decode("utf-8", "replace").lstrip("\ufeff").strip()
    fields = _json_fields(line)
    if base.endswith("_labelled.txt") and any(base.startswith(key) for key, _ in UCI_ITEMS):
        return "sentiment-uci"
    if ext in (".jsonl", ".ndjson") or (ext in (".json", ".txt", "") and fields):
        found = next((fmt for key, fmt in JSONL_FIELDS if key in fields), None)
        if found or ext in (".jsonl", ".ndjson"):
            if found:
                return found
            raise ValueError(f"cannot tell the format of {name}: JSON lines with fields {fields[:8]}; "
                             "want sentence1/premise (nli), predicate_index (factuality), gold (paraphrase), "
                             "article/document/claim (documents) or text")
    if ext == ".json":
        return "dnc-json" if line.startswith("[") else "uds-json"
    if ext == ".csv":
        names = _csv_names(line)
        if any(n.startswith("sentence") for n in names) and "word" in names and "tag" in names:
            return "gmb"
        if "text" in names and "label" in names:
            return "sentiment-csv"
        raise ValueError(f"cannot tell the format of {name}: a CSV with header {line[:80]!r}; "
                         "want 'Sentence #,Word,POS,Tag' (gmb) or 'text,label[,item]' (sentiment-csv)")
    columns = line.split()
    if ext in (".conll", ".conll03", ".iob", ".bio") or line.startswith("-DOCSTART-") or (
            ext == ".txt" and len(columns) == 4 and "\t" not in line.strip() and TAG.match(columns[3])):
        return "conll2003"
    if ext == ".tsv":
        return "paraphrase-tsv"
    if ext == ".txt":
        if "\t" in line:
            return "sentiment-uci" if re.search(r"\t\s*[01]$", line) else "paraphrase-tsv"
        return "text"
    raise ValueError(f"cannot tell the format of {name}; name it with --input-format, one of "
                     f"{', '.join(sorted(FORMATS))}")


def head_line(path: str) -> Optional[bytes]:
    """The first line of a file (local or gs://, compressed) as UTF-8 past any byte-order mark; None if it is empty."""
    with FileSystems.open(path) as handle:
        chunks, _ = utf8_chunks(iter(lambda: handle.read(PEEK_BYTES), b""))
        first = next(chunks, None)
        return None if first is None else first_line(itertools.chain([first], chunks), HEAD_LIMIT)


def detect_format(path: str) -> str:
    """The format of a file (local or gs://), from its name and first line, or of a finished dataset's folder; an empty
    file is a ValueError."""
    if is_dataset(path):
        return DATASET
    head = head_line(path)
    if head is None:
        raise ValueError(f"input {path} is empty")
    if b"\x00" in head:
        raise ValueError(f"input {path} has NUL bytes in its first line: UTF-16 without a byte-order mark? "
                         "save it as UTF-8 (or UTF-16 with a BOM)")
    return detect_format_of(path, head)
