"""The machine line every benchmark prints: the context its figures depend on."""
from __future__ import annotations

import os
import platform
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
