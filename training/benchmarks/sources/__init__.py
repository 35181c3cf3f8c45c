"""The benchmarks `entailgen benchmarks fetch` knows: one module per benchmark, its public source files (pinned by
commit) and its converter into the files `evaluate --benchmark` reads."""
from __future__ import annotations

from entailgen.training.benchmarks.fetch import Benchmark
from entailgen.training.benchmarks.sources import rank19, spans, summac, true

BENCHMARKS: dict[str, Benchmark] = {m.BENCHMARK.name: m.BENCHMARK for m in (summac, rank19, true, spans)}
