"""Retry a failed batch in halves, so only the item a backend chokes on becomes a dead letter."""
from __future__ import annotations

import logging
from typing import Callable, Iterable, Sequence, TypeVar

log = logging.getLogger(__name__)

Item = TypeVar("Item")
Out = TypeVar("Out")


def isolate_failures(batch: Sequence[Item], run: Callable[[Sequence[Item]], Iterable[Out]],
                     dead: Callable[[Item, Exception], Out], errors: tuple[type[Exception], ...] = (Exception,),
                     what: str = "batch") -> list[Out]:
    """run(batch) in one call (the fast path); when it raises one of errors, each half is run the same way, down to
    the item that fails alone and gives dead(item, error) in its place. One bad item in n costs about 2 log2(n)
    calls, not n (each Apertium call starts a pipeline of processes), and never sinks the others."""
    try:
        return list(run(batch))
    except errors as exc:
        if len(batch) > 1:
            log.warning("%s of %d failed (%s); retrying it in halves", what, len(batch), exc)
        return _halves(batch, run, dead, errors, exc)


def _halves(batch: Sequence[Item], run, dead, errors, exc: Exception) -> list[Out]:
    """The outputs of a failed batch: a single item is dead; otherwise each half is run whole, or split again."""
    batch = list(batch)  # a runner's grouped values need not slice
    if len(batch) == 1:
        return [dead(batch[0], exc)]
    out: list[Out] = []
    for half in (batch[: len(batch) // 2], batch[len(batch) // 2:]):
        try:
            out += list(run(half))
        except errors as half_exc:
            out += _halves(half, run, dead, errors, half_exc)
    return out
