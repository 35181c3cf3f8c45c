"""Content ids and per-record randomness: the two things that make every stage deterministic."""
from __future__ import annotations

import hashlib
import random


def content_id(*parts: object) -> str:
    """Stable 16-hex id of the given parts, so the same content gets the same id in any runner."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8"))
    return h.hexdigest()[:16]


def unit_hash(*parts: object) -> float:
    """Stable number in [0, 1) from the parts, for hash-based split and shard assignment."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8"))
    return int.from_bytes(h.digest()[:8], "big") / 2**64


def seeded_rng(seed: int, record_id: str, purpose: str = "") -> random.Random:
    """A Random seeded from the run seed and the record id, never from global state."""
    h = hashlib.sha256(f"{seed}\x1f{purpose}\x1f{record_id}".encode("utf-8"))
    return random.Random(int.from_bytes(h.digest()[:8], "big"))
