"""FRANK by origin: how much of a detector's FRANK figure is telling its BBC summaries from its CNN/DM ones.

FRANK's test cut pools XSum-style BBC summaries (93% inconsistent) and CNN/DM ones (41% inconsistent) under one
threshold, so a score that only tells the two origins apart already earns most of its balanced accuracy. This prints,
for the bench's detectors, unigram overlap and the origin alone on the same rows, the pooled figures beside the ROC
AUC within each origin (its gap to overlap's, with a 95% paired bootstrap interval) and the share of each origin's rows
passed as consistent at the val-chosen threshold.

Usage: python bench/trials/frank_origins.py --summac DIR --work W [--models FOLDER ...]
DIR/frank.json is `entailgen benchmarks fetch summac`'s (it keeps each row's `origin`); W a bench/benchmark.py work
dir whose models are scored already (a row not cached yet is scored).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
import host  # noqa: E402 (bench/host.py)
from benchmark import Bench, ensemble_scores, recut, zs_scores

ORIGINS = ("cnndm", "bbc")


def auc_draws(rows: list[int], labels: list[int], resamples: int = 1000, seed: int = 0) -> list[list[int]]:
    """The rows themselves, then resamples draws of them with replacement (each holding both labels): the same draws
    for every detector, so an AUC gap to overlap gets a paired bootstrap interval."""
    rng, out = random.Random(seed), [rows]
    while len(out) <= resamples:
        k = [rows[rng.randrange(len(rows))] for _ in rows]
        if 0 < sum(labels[i] for i in k) < len(k):
            out.append(k)
    return out


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--summac", type=Path, required=True, help="the folder holding frank.json")
    args.add_argument("--work", type=Path, required=True, help="a bench/benchmark.py work dir")
    args.add_argument("--models", nargs="+", default=["claims-source", "dae-arcs-full"], metavar="FOLDER")
    opts = args.parse_args()
    from entailgen.training.benchmarks.baselines import UNIGRAM, unigram_overlap_scores
    from entailgen.training.benchmarks.metrics import balanced_accuracy, central_95, choose_threshold, roc_auc
    from entailgen.training.benchmarks.summac import read_benchmark

    path = opts.summac / "frank.json"
    if not path.is_file() or not (opts.work / "models").is_dir():
        args.error(f"needs {path} (entailgen benchmarks fetch summac --to DIR) and a bench/benchmark.py work dir "
                   "with models/ (--work)")
    origin = {(r["document"], r["claim"]): r["origin"] for r in json.loads(path.read_text()).values()}
    rows, _, _ = recut(read_benchmark([str(path)]))
    pairs = [(r.document, r.claim) for r in rows]
    bench = Bench(argparse.Namespace(work=opts.work, granularity="sentence", device="cpu"))
    scored = {m: bench.scored(opts.work / "models" / m, pairs) for m in opts.models}
    scores = {m: zs_scores(results) for m, results in scored.items()}
    if len(opts.models) > 1:
        scores["ensemble"] = ensemble_scores(list(scored.values()))
    scores[UNIGRAM] = unigram_overlap_scores(pairs)
    scores["origin alone (CNN/DM 1, BBC 0)"] = [float(origin[p] == "cnndm") for p in pairs]
    print(host.describe(f"FRANK by origin; work dir {opts.work}"), flush=True)
    print("| detector | BA | AUC | " + " | ".join(f"AUC {o} (x overlap) | AUC gap {o}, 95% | passed {o} 1 / 0"
                                                 for o in ORIGINS) + " |")
    print("|---|---|---|" + "---|---|---|" * len(ORIGINS))
    val = [i for i, r in enumerate(rows) if r.cut == "val"]
    test = [i for i, r in enumerate(rows) if r.cut == "test"]
    labels = [r.label for r in rows]
    draws = {o: auc_draws([i for i in test if origin[pairs[i]] == o], labels) for o in ORIGINS}

    def aucs(s: list[float], o: str) -> list[float]:
        """ROC AUC (percent) on the origin's test rows, then on each of its draws."""
        return [100 * roc_auc([labels[i] for i in k], [s[i] for i in k]) for k in draws[o]]

    drawn = {name: {o: aucs(s, o) for o in ORIGINS} for name, s in scores.items()}  # each detector's, once
    for name in [UNIGRAM, *[n for n in scores if n != UNIGRAM]]:  # overlap first: the baseline of the ratios
        s = scores[name]
        t = choose_threshold([labels[i] for i in val], [s[i] for i in val])
        cells = [f"{100 * balanced_accuracy([labels[i] for i in test], [int(s[i] > t) for i in test]):.1f}",
                 f"{100 * roc_auc([labels[i] for i in test], [s[i] for i in test]):.1f}"]
        for o in ORIGINS:
            part, (auc, *mine), (base, *baseline) = draws[o][0], drawn[name][o], drawn[UNIGRAM][o]
            low, high = central_95([a - b for a, b in zip(mine, baseline)])
            passed = [100 * sum(s[i] > t for i in part if labels[i] == label) / sum(labels[i] == label for i in part)
                      for label in (1, 0)]
            cells += [f"{auc:.1f} ({auc / base:.2f}x)", "-" if name == UNIGRAM else f"{auc - base:+.1f} [{low:+.1f}, "
                      f"{high:+.1f}]", f"{passed[0]:.0f}% / {passed[1]:.0f}%"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    counts = {o: {label: sum(1 for r, p in zip(rows, pairs) if r.cut == "test" and origin[p] == o and r.label == label)
                  for label in (1, 0)} for o in ORIGINS}
    print("test rows (consistent + inconsistent): " + ", ".join(f"{o} {c[1]}+{c[0]}" for o, c in counts.items()))


if __name__ == "__main__":
    sys.exit(main())
