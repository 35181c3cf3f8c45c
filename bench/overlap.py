"""Benchmark NearestOverlap (DirectRunner): throughput at two corpus sizes, their per-sentence cost ratio (~1 means
linear), and agreement with a brute-force all-pairs baseline on a subset, all measured in this run.

Run: python bench/overlap.py [--sizes 10000 100000] [--subset 2000] [--seed 0]
The corpus is synthetic and generated on the workers in chunks of 1000: words drawn from a Zipf distribution over a
fixed vocabulary; a share of the sentences are light edits of an earlier one in their chunk, as real corpora hold
near-paraphrases that nearest overlap should find. The transform's time is the pipeline's minus that of the same
pipeline without NearestOverlap (startup and generation).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import tempfile
import time
from typing import Optional

import apache_beam as beam
from apache_beam.metrics.metric import Metrics, MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import ParsedSentence, Token
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.augment.overlap import (
    NearestOverlap, OverlapOptions, member, nearest_by_brute_force, overlap)

from host import describe  # bench/host.py, beside this script


CHUNK = 1000


def zipf_cumulative(vocabulary: int, zipf_s: float) -> list[float]:
    """Cumulative Zipf weights 1/r^s over word ranks 1..vocabulary."""
    cumulative, total = [], 0.0
    for r in range(1, vocabulary + 1):
        total += 1.0 / r ** zipf_s
        cumulative.append(total)
    return cumulative


def corpus_chunk(chunk: int, seed: int, size: int = CHUNK, vocabulary: int = 20000, zipf_s: float = 1.1,
                 edited: float = 0.3) -> list[ParsedSentence]:
    """`size` sentences of 8-20 Zipf-distributed words; a share `edited` rewrite 1-4 words of an earlier one."""
    rng = seeded_rng(seed, f"chunk:{chunk}", "bench")
    words = [f"w{r}" for r in range(1, vocabulary + 1)]
    cumulative = zipf_cumulative(vocabulary, zipf_s)
    texts: list[list[str]] = []
    for _ in range(size):
        if texts and rng.random() < edited:
            sentence = list(rng.choice(texts))
            for _ in range(rng.randint(1, 4)):
                sentence[rng.randrange(len(sentence))] = rng.choices(words, cum_weights=cumulative)[0]
        else:
            sentence = rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 20))
        texts.append(sentence)
    return [parsed(" ".join(t), f"{chunk}:{k}") for k, t in enumerate(texts)]


def parsed(text: str, k: str) -> ParsedSentence:
    """A stand-in parse: every word an object of the first (arcs exist, so examples carry labels)."""
    tokens = [Token(w, w, "NOUN", "NN", "O", -1 if i == 0 else 0, "ROOT" if i == 0 else "dobj")
              for i, w in enumerate(text.split())]
    return ParsedSentence(content_id(text, "bench"), text, tokens, extract_arcs(tokens), "bench", "bench", k)


def run_pipeline(n: int, seed: int, options: OverlapOptions, overlap_on: bool = True,
                 out_dir: Optional[str] = None) -> tuple[float, int]:
    """Seconds to generate n sentences on the workers (and pair them by NearestOverlap), and the rows made."""
    start = time.perf_counter()
    p = beam.Pipeline(options=PipelineOptions(flags=[], runner="DirectRunner"))
    sentences = (p | beam.Create(range((n + CHUNK - 1) // CHUNK))
                 | beam.FlatMap(lambda c: corpus_chunk(c, seed, min(CHUNK, n - c * CHUNK))))
    rows = sentences | NearestOverlap(options) if overlap_on else sentences
    _ = rows | beam.Map(lambda _: Metrics.counter("bench", "rows").inc())
    if out_dir:
        _ = (rows | beam.Map(lambda e: json.dumps([e.premise, e.hypothesis]))
             | beam.io.WriteToText(os.path.join(out_dir, "pairs")))
    result = p.run()
    result.wait_until_finish()
    seconds = time.perf_counter() - start
    counters = result.metrics().query(MetricsFilter().with_name("rows"))["counters"]
    return seconds, sum(c.committed or 0 for c in counters)


def agreement(n: int, seed: int, options: OverlapOptions) -> dict:
    """How the blocked pairing compares with the exact all-pairs pairing on the same n sentences."""
    sentences = [s for c in range((n + CHUNK - 1) // CHUNK) for s in corpus_chunk(c, seed, min(CHUNK, n - c * CHUNK))]
    members = {s.text: member(s) for s in sentences}
    start = time.perf_counter()
    exact = nearest_by_brute_force(list(members.values()))
    brute_seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as out_dir:
        blocked_seconds, _ = run_pipeline(n, seed, options, out_dir=out_dir)
        pairs = [json.loads(line) for path in glob.glob(os.path.join(out_dir, "pairs*")) for line in open(path)]
    by_id = {m.id: m for m in members.values()}
    best = {by_id[pid].text: c for pid, c in exact.items()}
    same = optimal = 0
    for premise, hypothesis in pairs:
        reference = best[premise]
        same += by_id[reference.hypothesis_id].text == hypothesis
        optimal += overlap(members[premise], members[hypothesis]) == reference.overlap
    return {"sentences": len(members), "paired_exact": len(exact), "paired_blocked": len(pairs),
            "recall": len(pairs) / max(len(exact), 1), "same_partner": same / max(len(pairs), 1),
            "optimal_overlap": optimal / max(len(pairs), 1), "brute_force_s": brute_seconds,
            "blocked_s": blocked_seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--subset", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blocking-keys", type=int, default=OverlapOptions().blocking_keys)
    parser.add_argument("--max-block", type=int, default=OverlapOptions().max_block)
    args = parser.parse_args()
    options = OverlapOptions(blocking_keys=args.blocking_keys, max_block=args.max_block)

    print(describe(platform.platform()))
    print(f"options: {options}")
    per_sentence = {}
    for n in args.sizes:
        generate, _ = run_pipeline(n, args.seed, options, overlap_on=False)
        total, made = run_pipeline(n, args.seed, options)
        seconds = max(total - generate, 1e-9)  # the transform alone: minus startup and corpus generation
        per_sentence[n] = seconds / n
        print(f"n={n:>7}: NearestOverlap {seconds:6.1f} s ({total:6.1f} s pipeline - {generate:5.1f} s generating)"
              f"  {n / seconds:7.0f} sentences/s  {made} examples")
    small, large = min(args.sizes), max(args.sizes)
    if small != large:
        print(f"per-sentence cost ratio n={large} vs n={small}: {per_sentence[large] / per_sentence[small]:.2f} "
              f"(1.0 = linear; corpus grew {large / small:.0f}x)")
    stats = agreement(args.subset, args.seed + 1, options)
    print(f"brute force on {stats['sentences']} sentences: {stats['brute_force_s']:.1f} s all pairs vs "
          f"{stats['blocked_s']:.1f} s blocked (Beam, startup included)")
    print(f"  recall {stats['recall']:.3f} ({stats['paired_blocked']}/{stats['paired_exact']} sentences paired), "
          f"same partner {stats['same_partner']:.3f}, optimal overlap {stats['optimal_overlap']:.3f}")


if __name__ == "__main__":
    main()
