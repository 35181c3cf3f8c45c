"""Document passages (pure): a premise made of a document's sentences, packed to a length by how many of a claim's
content words each holds, or cut into overlapping windows. The scorer reads a summary sentence against them
(training.scoring.passages) and the trainer builds its premises the same way (transforms.views' packed view)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence


@dataclass(frozen=True)
class Passage:
    """A premise cut from the document: its text and the runs of consecutive document sentences it joins, in
    document order (a packed passage can join runs from far apart; explain.py finds each run in the document)."""

    text: str
    runs: tuple[str, ...]
    sentences: tuple[int, ...] = ()  # the indices of the sentences joined, where they were numbered


def joined(sentences: Sequence[str], chosen: Iterable[int]) -> Passage:
    """The passage of the chosen document sentences, in document order: texts joined by a space, each run of
    consecutive sentences one run."""
    order = sorted(set(chosen))
    runs: list[list[str]] = []
    for n, i in enumerate(order):
        if n and i == order[n - 1] + 1:
            runs[-1].append(sentences[i])
        else:
            runs.append([sentences[i]])
    return Passage(" ".join(sentences[i] for i in order), tuple(" ".join(run) for run in runs), tuple(order))


def packed(sentences: Sequence[str], lengths: Sequence[int], held: Sequence[int], room: int,
           k: Optional[int] = None, first: Optional[int] = None, allowed: Optional[Iterable[int]] = None) -> Passage:
    """The packed passage: sentences by how many of the claim's content words each holds (`held`; ties: the earlier),
    `first` before any, each added while the passage's tokens (`lengths`) stay within `room` (at most k of them; the
    first always, cut later if it alone is too long), only `allowed` ones where given, in document order."""
    pool = set(range(len(sentences)) if allowed is None else allowed) | ({first} if first is not None else set())
    ranked = sorted(pool, key=lambda i: (i != first, -held[i], i))
    chosen, used = [], 0
    for i in ranked:
        if k is not None and len(chosen) >= k:
            break
        if not chosen or used + lengths[i] <= room:
            chosen.append(i)
            used += lengths[i]
    return joined(sentences, chosen)


def chunks(sentences: Sequence[str], lengths: Sequence[int], room: int) -> list[Passage]:
    """Windows of consecutive sentences, each as many as fit in `room` tokens (at least one), each starting at the
    sentence halfway into the one before (a stride of half a window), until the last sentence is in one."""
    out: list[Passage] = []
    start = 0
    while start < len(sentences):
        end, used = start + 1, lengths[start]
        while end < len(sentences) and used + lengths[end] <= room:
            used += lengths[end]
            end += 1
        out.append(joined(sentences, range(start, end)))
        if end >= len(sentences):
            break
        start = max(start + 1, start + (end - start) // 2)
    return out
