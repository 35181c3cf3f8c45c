"""The UDS 2.0 factuality files (UD-EWT) from the PyPI wheel decomp==0.3.2, read as data: its code is never run.

The wheel is Python >= 3.12 only, so it is downloaded for 3.12 into a cache dir without installing it. Shared by
bench/quality.py, bench/pipeline.py, bench/benchmark.py and the trial bench/trials/factuality_audit.py."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

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
