"""What every benchmark shares: the machine line its figures depend on, its log lines, and the CLI as a user runs it."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def describe(*extras: str) -> str:
    """CPU model, cores, memory, load at start and versions, plus the benchmark's own extras."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or platform.machine())
    mem = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
               if line.startswith("MemTotal:")) / 1024 ** 2
    load = Path("/proc/loadavg").read_text().split()[0]
    try:
        import apache_beam as beam

        beam_version = beam.__version__
    except ImportError:  # a machine that only trains (bench/quality.py's model stage)
        beam_version = "not installed"
    return ", ".join((f"machine: {model}, {os.cpu_count()} cores, {mem:.1f} GiB RAM, load average {load} at start; "
                      f"python {platform.python_version()}, Apache Beam {beam_version}", *extras))


def log(bench: str, message: str) -> None:
    """A bench's progress line on stderr, stamped with the time."""
    print(f"[{bench} {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def entailgen(bench: str, *args: str) -> None:
    """Run the entailgen CLI in a child process (what a user runs; a crash in one stage cannot poison the next)."""
    log(bench, "entailgen " + " ".join(args))
    done = subprocess.run([sys.executable, "-m", "entailgen.runners.cli", *args])
    if done.returncode != 0:
        raise SystemExit(f"{bench} bench: `entailgen {' '.join(args)}` exited {done.returncode}")


def read_rows(path: str, n: int) -> list[tuple[str, str]]:
    """The first n (document, summary) rows of a JSON Lines file."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows.append((row["document"], row.get("summary") or row["claim"]))
            if len(rows) == n:
                break
    return rows
