"""Retry a failed batch one item at a time, so only the item a backend chokes on becomes a dead letter."""
from __future__ import annotations

import logging
from typing import Callable, Iterable, Sequence, TypeVar

log = logging.getLogger(__name__)

Item = TypeVar("Item")
Out = TypeVar("Out")


def isolate_failures(batch: Sequence[Item], run: Callable[[Sequence[Item]], Iterable[Out]],
                     dead: Callable[[Item, Exception], Out], errors: tuple[type[Exception], ...] = (Exception,),
                     what: str = "batch") -> list[Out]:
    """run(batch) in one call (the fast path); when it raises one of errors, run each item alone, and an item that
    still fails gives dead(item, error) in its place, so one bad item never sinks the others."""
    try:
        return list(run(batch))
    except errors as exc:
        if len(batch) == 1:
            return [dead(batch[0], exc)]
        log.warning("%s of %d failed (%s); retrying one by one", what, len(batch), exc)
        return [out for item in batch for out in isolate_failures([item], run, dead, errors, what)]
