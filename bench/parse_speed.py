"""Benchmark: sentences/s through `entailgen run parse` vs a plain spaCy `nlp.pipe` loop on the same sentences.

Both sides include loading the model (the pipeline loads it once per worker in DoFn.setup). The pipeline side is the
whole job: read, parse, arcs, split, sharded Parquet write and manifest, on the DirectRunner with one worker.
Usage: python bench/parse_speed.py [--n 5000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

from host import describe  # bench/host.py, beside this script

SUBJECTS = ["The committee", "A young farmer", "Our neighbours", "The new manager", "Several students", "The company",
            "My grandmother", "The local council", "A spokesman for the union", "The researchers", "Two tourists"]
VERBS = ["approved", "rejected", "discussed", "painted", "repaired", "described", "visited", "announced", "bought",
         "questioned", "guaranteed", "postponed"]
OBJECTS = ["the liquidation of the old factory", "a plan for the harbour", "the results of the survey",
           "an old wooden boat", "the contract with the suppliers", "a small house near the river",
           "the decision of the board", "the museum in the city centre", "three proposals", "the annual report"]
TAILS = ["", " on Monday", " after a long debate", " because the budget was tight", " in front of the press",
         " without telling anyone", " during the storm", " for the second time this year", " with great care"]


def sentences(n: int, seed: int = 0) -> list[str]:
    """n varied English sentences (5-30 words) from a seeded template grammar."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(TAILS)}"
        if rng.random() < 0.3:
            s += f", and {rng.choice(SUBJECTS).lower()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
        out.append(s + ".")
    return out


def plain_pipe(texts: list[str]) -> float:
    """Seconds for load + nlp.pipe over the texts, materialising each Doc's parse."""
    from entailgen.transforms.parser import load_spacy

    start = time.perf_counter()
    nlp = load_spacy()
    n = sum(len(doc) for doc in nlp.pipe(texts, batch_size=256))
    assert n > 0
    return time.perf_counter() - start


def pipeline(path: str, output: str) -> float:
    """Seconds for the whole parse job over the file (DirectRunner, one worker)."""
    from entailgen.pipelines.base import RunConfig
    from entailgen.runners.run import run_job

    start = time.perf_counter()
    manifest = run_job(RunConfig(pipeline="parse", inputs=(path,), output=output, input_format="text"))
    assert manifest["counts"]["total"]["written"] + manifest["counts"]["total"]["dead_letters"] == \
        manifest["counts"]["total"]["read"]
    return time.perf_counter() - start


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--n", type=int, default=5000)
    args.add_argument("--repeat", type=int, default=3)
    opts = args.parse_args()
    texts = sentences(opts.n)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.txt")
        with open(path, "w") as f:
            f.write("\n".join(texts) + "\n")
        base = min(plain_pipe(texts) for _ in range(opts.repeat))
        ours = min(pipeline(path, os.path.join(tmp, f"out{i}")) for i in range(opts.repeat))
    import spacy

    print(describe(f"spaCy {spacy.__version__}"))
    print(f"sentences: {opts.n} (best of {opts.repeat}, model load included on both sides)")
    print(f"plain nlp.pipe:          {opts.n / base:8.1f} sentences/s ({base:.2f} s)")
    print(f"entailgen run parse:     {opts.n / ours:8.1f} sentences/s ({ours:.2f} s)")
    print(f"ratio pipeline/baseline: {base / ours:.2f}")


if __name__ == "__main__":
    sys.exit(main())
