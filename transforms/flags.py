"""argparse types shared by the CLI's and the families' flags (below both, so pipelines never import runners)."""
from __future__ import annotations

import argparse
import math


def finite_float(text: str) -> float:
    """argparse type of every float flag: nan and inf are refused (every comparison with nan is false, so range
    checks such as `x < 0` let it through; inf trains to nan weights)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value
