"""Where a summary sentence's evidence comes from (the document read whole, as AlignScore and MiniCheck read it): the
passages a model scores it against, each with its place in the document, and how a sentence's arcs are read from
them. Pure functions; no torch, no Beam.

Evidence modes (`--evidence`):
- block: every block of the granularity; the sentence takes its best block, and every arc is read from that block
  (SummaC-ZS's max over blocks).
- arcs: every block of the granularity; each arc takes its best block on its own, and the sentence's score is the mean
  of those maxima, so a sentence fused from two sentences of the document finds each arc where it is supported.
- packed: one passage per summary sentence: the document sentences that share most content words with it (ties: the
  earlier), taken best first while they fit in the model's length, put back in document order.
- chunks: windows of consecutive document sentences as long as the model takes, each starting halfway into the one
  before (a stride of half a chunk); each arc its best chunk, as in arcs.
A sentence longer than the model's length alone is cut to fit (counted as cut): a passage is never refused for length.
The default is arcs (bench/trials/whole-document.md: the best on val), block where a Conv head reads the block x
sentence matrix (resolved).
"""
from __future__ import annotations

from typing import Optional, Sequence


BLOCK, ARCS, PACKED, CHUNKS = "block", "arcs", "packed", "chunks"
EVIDENCE = (BLOCK, ARCS, PACKED, CHUNKS)
PER_ARC = (ARCS, CHUNKS)  # the modes whose arcs each take their best passage
DEFAULT = ARCS


def resolved(evidence: Optional[str], conv: bool = False) -> str:
    """The evidence mode a scorer uses: as given, else the default (block for a Conv head, which reads the block x
    sentence matrix)."""
    return evidence if evidence is not None else BLOCK if conv else DEFAULT


class WordCount:
    """Lengths in words, for a scorer that cannot count its model's tokens (a test's, a caller's own PairScores):
    a passage of 128 words at most beside the sentence."""

    max_length = 128

    def lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def room(self, hypotheses: Sequence[str]) -> list[int]:
        return [self.max_length - 3 - len(h.split()) for h in hypotheses]


def check_evidence(evidence: str) -> None:
    """ValueError (one line) for an evidence mode that does not exist."""
    if evidence not in EVIDENCE:
        raise ValueError(f"unknown evidence {evidence!r}; choose one of {', '.join(EVIDENCE)}")


def arc_maxima(parses: Sequence) -> Optional[dict]:
    """One summary sentence's arcs read from several passages (each a DaeScorer result of the sentence against one
    passage, or an Unscorable): each arc at its best probability over the passages, with `evidence`, the index of the
    passage it came from (ties: the earlier), and the mean of those maxima as the sentence's score; None when no
    passage gave arcs."""
    good = [(i, p) for i, p in enumerate(parses) if isinstance(p, dict)]
    if not good:
        return None
    best: dict = {}
    for i, parse in good:
        for arc in parse["arcs"]:
            key = (arc["head"], arc["child"], arc["rel"])
            if key not in best or arc["entailed_probability"] > best[key]["entailed_probability"]:
                best[key] = {**arc, "evidence": i}
    arcs = list(best.values())
    score = round(sum(a["entailed_probability"] for a in arcs) / len(arcs), 6)
    return {"hypothesis_tokens": good[0][1]["hypothesis_tokens"], "arcs": arcs, "score": score}
