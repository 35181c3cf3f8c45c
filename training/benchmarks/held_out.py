"""Test-cut documents held out of training text across benchmark sets, not set by set.

The SummaC sets share articles (FRANK's BBC articles are XSumFaith's, its CNN/DM ones SummEval's), in copies that
differ in line breaks, spacing, case and a cut-off tail. A document is held out when it is the same article as a
test-cut document of any set given: equal once normalised, or one a cut-off copy of the other. Sharing a paragraph (a
lead, a quote) does not make two documents one article.
"""
from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from typing import Iterable, Sequence

from entailgen.training.benchmarks.files import BenchmarkError, read_text
from entailgen.training.benchmarks.spans import read_articles
from entailgen.training.benchmarks.summac import read_benchmark

PREFIX = 300  # normalised characters a cut-off copy keeps at least (about 60 words): shorter copies must be equal


def normalised(text: str) -> str:
    """A document as the rule compares it: NFKC, case folded, no whitespace at all (a lost line break joins two words
    in one copy and not in the other)."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def same_article(a: str, b: str) -> bool:
    """Whether two normalised documents are one article: equal, or the shorter, at least PREFIX long, begins the
    longer (a copy whose tail was cut off)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= PREFIX and long.startswith(short))


class HeldOut:
    """The documents training text must not hold, indexed by their first PREFIX normalised characters."""

    def __init__(self, documents: Iterable[str]):
        self.exact: set[str] = set()
        self.by_head: dict[str, list[str]] = defaultdict(list)
        for document in documents:
            text = normalised(document)
            self.exact.add(text)
            if len(text) >= PREFIX:
                self.by_head[text[:PREFIX]].append(text)

    def __len__(self) -> int:
        return len(self.exact)

    def __contains__(self, document: str) -> bool:
        text = normalised(document)
        return text in self.exact or (len(text) >= PREFIX and any(
            same_article(text, held) for held in self.by_head.get(text[:PREFIX], ())))

    def kept(self, documents: Sequence[str]) -> list[str]:
        """The documents that are no held-out article, in order."""
        return [d for d in documents if d not in self]


def held_out_of(rows) -> HeldOut:
    """The test-cut documents of benchmark rows, every set's, held out."""
    return HeldOut(r.document for r in rows if r.cut == "test")


def is_articles(path: str) -> bool:
    """Whether a file is the spans benchmark's articles ({"bbcid", "document"} lines, no claim: benchmark rows that
    carry a bbcid are still rows with a cut): they have no cut of their own."""
    try:
        articles = read_articles(path)
    except BenchmarkError:
        return False
    lines = read_text(path, "articles").split("\n")
    return bool(articles) and not any("claim" in json.loads(line) for line in lines if line.strip())


def held_out(files: Sequence[str]) -> HeldOut:
    """The test-cut documents of benchmark files, in every layout `evaluate --benchmark` reads, and every article of a
    spans articles file (`--benchmark spans --articles`: a word-level benchmark cuts its own documents, so all stay
    out)."""
    articles = [path for path in files if is_articles(path)]
    rows = read_benchmark([path for path in files if path not in articles])
    return HeldOut([*(r.document for r in rows if r.cut == "test"),
                    *(text for path in articles for text in read_articles(path).values())])
