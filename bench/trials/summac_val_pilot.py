"""A pilot on SummaC's val cut alone: a model's val balanced accuracy (threshold chosen on the same val rows, the
`val_balanced_accuracy` that `evaluate --benchmark summac` reports and the document-arcs rule picks on) and val ROC AUC
per set, beside unigram overlap, with the paired bootstrap gap of the mean balanced accuracy over the val rows.

No test row is read into the scorer: the test cuts stay unspent for a preregistered run. The threshold is fit on the
rows it is measured on, so every figure here is optimistic alike for the model and the baseline.
Usage: python bench/trials/summac_val_pilot.py MODEL_OR_DETECTOR SET.json... [--sets xsumfaith,frank] [--out scores.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from entailgen.training.benchmarks.baselines import UNIGRAM, unigram_overlap_scores
from entailgen.training.benchmarks.metrics import balanced_accuracy, choose_threshold, gap_interval, roc_auc
from entailgen.training.benchmarks.summac import distinct_rows, read_benchmark
from entailgen.training.scoring.document_scorer import DocumentScorer, score_of
from entailgen.training.scoring.unscorable import every_scored


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--sets", help="only these sets (comma-separated), e.g. when time is short")
    ap.add_argument("--out", help="write the val rows' scores here (JSON)")
    ap.add_argument("--chunk", type=int, default=64)
    args = ap.parse_args()
    rows = [r for r in distinct_rows(read_benchmark(args.files))[0] if r.cut == "val"
            and (not args.sets or r.dataset in args.sets.split(","))]
    pairs = [(r.document, r.claim) for r in rows]
    scorer, scores, start = DocumentScorer(args.model, device="cpu"), [], time.time()
    for k in range(0, len(pairs), args.chunk):
        scores += every_scored([score_of(x) for x in scorer.scored(pairs[k:k + args.chunk])])
        print(f"{len(scores)} / {len(pairs)} val rows scored, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    baseline = unigram_overlap_scores(pairs)
    sets = list(dict.fromkeys(r.dataset for r in rows))
    print(f"| {args.model} (val rows, threshold fit on them) | " + " | ".join(sets) + " | mean |")
    print("|---|" + "---|" * (len(sets) + 1))
    cuts = []
    for name, values in (("model", scores), (UNIGRAM, baseline)):
        accs, aucs = [], []
        for s in sets:
            y = [r.label for r in rows if r.dataset == s]
            v = [x for r, x in zip(rows, values) if r.dataset == s]
            t = choose_threshold(y, v)
            accs.append(100 * balanced_accuracy(y, [int(x > t) for x in v]))
            aucs.append(100 * roc_auc(y, v))
        print(f"| {name} balanced accuracy | " + " | ".join(f"{a:.1f}" for a in accs)
              + f" | {sum(accs) / len(accs):.1f} |")
        print(f"| {name} ROC AUC | " + " | ".join(f"{a:.1f}" for a in aucs) + f" | {sum(aucs) / len(aucs):.1f} |")
    for s in sets:
        y = [r.label for r in rows if r.dataset == s]
        m, b = ([x for r, x in zip(rows, v) if r.dataset == s] for v in (scores, baseline))
        tm, tb = choose_threshold(y, m), choose_threshold(y, b)
        cuts.append((y, [int(x > tm) for x in m], [int(x > tb) for x in b]))
    gap, low, high = gap_interval(cuts, 1000, 0)
    print(f"model minus {UNIGRAM}, mean val balanced accuracy: {100 * gap:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] "
          f"(paired bootstrap over the val rows, thresholds fixed)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"ids": [r.id for r in rows], "scores": scores}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
