"""Audit on real data: recast factuality over the full UDS 2.0 (UD-EWT) annotations, hypothesis-only vs majority.

Poliak 2020 (ch. 5) finds hypothesis-only accuracy well above the majority class on recast factuality; the sample
data is too small to show it, the full UDS data (27k annotated predicates, in the PyPI wheel decomp==0.3.2) is not.
The wheel is fetched from PyPI (a package registry) into a cache dir unless --wheel names one; its code is not run.
Usage: python bench/factuality_audit.py [--wheel decomp-0.3.2-py3-none-any.whl] [--cache ~/.cache/entailgen]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from entailgen.runners.cli import main as entailgen

from host import describe  # bench/host.py, beside this script

SPLITS = ("train", "dev", "test")
MEMBER = "decomp/data/2.0/normalized/sentence/uds-ewt-sentences-{}-normalized.json"


def fetch_wheel(cache: Path) -> Path:
    """The decomp 0.3.2 wheel (Python >= 3.12 only, so downloaded for 3.12 without installing it)."""
    found = sorted(cache.glob("decomp-0.3.2-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "decomp==0.3.2", "--no-deps", "--python-version",
                        "3.12", "--only-binary=:all:", "-d", str(cache)], check=True)
        found = sorted(cache.glob("decomp-0.3.2-*.whl"))
    return found[0]


def extract(wheel: Path, into: Path) -> list[str]:
    """The three UDS sentence-graph files, extracted once."""
    paths = []
    with zipfile.ZipFile(wheel) as z:
        for split in SPLITS:
            target = into / f"uds-ewt-{split}.json"
            if not target.exists():
                target.write_bytes(z.read(MEMBER.format(split)))
            paths.append(str(target))
    return paths


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
