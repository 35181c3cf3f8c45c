"""Audit on real data: recast factuality over the full UDS 2.0 (UD-EWT) annotations, hypothesis-only vs majority.

Poliak 2020 (ch. 5) finds hypothesis-only accuracy well above the majority class on recast factuality; the sample
data is too small to show it, the full UDS data (27k annotated predicates, in the PyPI wheel decomp==0.3.2) is not.
The wheel is fetched from PyPI (a package registry) into a cache dir unless --wheel names one; its code is not run.
Usage: python bench/trials/factuality_audit.py [--wheel decomp-0.3.2-py3-none-any.whl] [--cache ~/.cache/entailgen]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from entailgen.runners.cli import main as entailgen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
from host import describe  # noqa: E402 (bench/host.py)
from uds import extract, fetch_wheel  # noqa: E402 (bench/uds.py)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--wheel", type=Path)
    args.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "entailgen")
    opts = args.parse_args()
    opts.cache.mkdir(parents=True, exist_ok=True)
    inputs = extract(opts.wheel or fetch_wheel(opts.cache), opts.cache)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "uds")
        start = time.perf_counter()
        flags = [f"--input={p}" for p in inputs]
        assert entailgen(["run", "recast", *flags, "--output", out, "--phenomena", "factuality", "--quiet"]) == 0
        seconds = time.perf_counter() - start
        manifest = json.loads(Path(out, "manifest.json").read_text())
    audit = manifest["stats"]["audit"]["factuality"]
    total = manifest["counts"]["total"]
    print(describe())
    print(f"UDS 2.0 factuality: {total['read']} predicates read, {total['skipped']} ambiguous (skipped), "
          f"{total['dead_letters']} dead letters, {total['written']} pairs, {seconds:.0f} s")
    print(f"test pairs: {audit['n_test']}, train pairs: {audit['n_train']}, labels {audit['label_counts']}")
    print(f"majority class:   {audit['majority_accuracy']:.2f}")
    print(f"hypothesis-only:  {audit['hypothesis_only_accuracy']:.2f}")
    print(f"ratio hypothesis-only / majority: {audit['hypothesis_only_accuracy'] / audit['majority_accuracy']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
