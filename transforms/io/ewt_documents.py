"""Whole UD English-EWT documents from the decomp==0.3.2 wheel (UDS 2.0 sentence graphs + ud_ids.json), as the
claims family's documents JSON Lines ({"id", "text"}), for offline runs on real web text (CC BY-SA 4.0).

Usage: python -m entailgen.transforms.io.ewt_documents DECOMP_WHEEL OUT.jsonl [--split dev|test|train]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from collections import defaultdict
from typing import IO, Iterable, Iterator

from entailgen.transforms.io.base import Reject, detokenize
from entailgen.transforms.io.jsonstream import data_members
from entailgen.transforms.io.uds import graph_tokens

SENTENCES = "decomp/data/2.0/normalized/sentence/uds-ewt-sentences-{split}-normalized.json"
UD_IDS = "decomp/data/ud_ids.json"
_NUMBER = re.compile(r"-(\d+)$")


def sentence_order(sentence_id: str) -> tuple[str, int]:
    """EWT sentence ids end in their place in the document (...-0007)."""
    match = _NUMBER.search(sentence_id)
    return (sentence_id, int(match.group(1))) if match else (sentence_id, 0)


def ewt_sentences(chunks: Iterable[bytes], ud_ids: dict, max_chunk_chars: int = 1 << 24) -> Iterator[tuple]:
    """(document id, place in the document, detokenized text) of each sentence graph in ud_ids; graphs that are not
    readable sentences or not in ud_ids are left out (this is a converter, not a reader)."""
    for member in data_members(chunks, max_chunk_chars):
        ids = ud_ids.get(member.key) if member.error is None else None
        if not ids:
            continue
        try:
            forms, _, _ = graph_tokens(member.value)
        except Reject:
            continue
        yield ids["document_id"], sentence_order(ids["sentence_id"])[1], detokenize(forms)


def ewt_documents(chunks: Iterable[bytes], ud_ids: dict, max_chunk_chars: int = 1 << 24) -> Iterator[dict]:
    """{"id": EWT document id, "text": its sentences in order, detokenized, one paragraph}, documents sorted by id."""
    documents: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for document_id, place, text in ewt_sentences(chunks, ud_ids, max_chunk_chars):
        documents[document_id].append((place, text))
    for document_id in sorted(documents):
        yield {"id": document_id, "text": " ".join(text for _, text in sorted(documents[document_id]))}


def convert(wheel: str, out: IO[str], split: str = "dev") -> int:
    """Write one EWT split's documents as JSON Lines; returns how many."""
    with zipfile.ZipFile(wheel) as archive:
        ud_ids = json.loads(archive.read(UD_IDS))
        with archive.open(SENTENCES.format(split=split)) as handle:
            n = 0
            for document in ewt_documents(iter(lambda: handle.read(1 << 20), b""), ud_ids):
                out.write(json.dumps(document, ensure_ascii=False) + "\n")
                n += 1
    return n


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel")
    parser.add_argument("out")
    parser.add_argument("--split", default="dev", choices=("dev", "test", "train"))
    args = parser.parse_args(argv)
    try:
        with open(args.out, "w", encoding="utf-8") as out:
            n = convert(args.wheel, out, args.split)
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        print(f"ewt_documents: error: {exc}", file=sys.stderr)
        return 2
    print(f"{n} documents -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
