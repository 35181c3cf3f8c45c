"""Stage 2 of the whole-document trial (bench/trials/rules/whole-document.md): the picked arms scored once on test, per
training seed. Spans through the benchmark's own run (`evaluate DETECTOR --benchmark spans DIR --evidence ARM`'s
report: word ROC AUC overall, intrinsic and extrinsic, beside the overlap mix, with paired intervals); SummaC through
its own evaluate_benchmark (threshold from val, test balanced accuracy and ROC AUC per set, the gap to unigram overlap
with its interval); and each row's score kept with its document's length in words, for the drift with length.

The arms that read the same cells (E0, E1) score each cell once (whole_document_val.Arms). Each (seed, set, arm) is
appended to --out as it ends, so a rerun goes on; `--table` prints the figures so far.
Usage: python bench/trials/whole_document_test.py SPANS_DIR SUMMAC_DIR --detectors 0=DET0,1=DET1 --out test.jsonl
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whole_document_val import ARMS, ROW, Arms, scored_so_far  # noqa: E402 (the val stage's scorers, one per arm)

from entailgen.training.benchmarks import spans  # noqa: E402
from entailgen.training.benchmarks.judged import JudgedModel  # noqa: E402
from entailgen.training.benchmarks.metrics import roc_auc  # noqa: E402
from entailgen.training.benchmarks.baselines import UNIGRAM  # noqa: E402
from entailgen.training.benchmarks.spans import OVERLAP_MIX as MIX, WITH_OVERLAP  # noqa: E402
from entailgen.training.benchmarks.summac import (BASELINES, distinct_rows, evaluate_benchmark,  # noqa: E402
                                                  read_benchmark)
from entailgen.training.scoring.document_scorer import score_of  # noqa: E402
from entailgen.training.scoring.precision import resolved_precision  # noqa: E402
from entailgen.training.scoring.score_modes import ScoreMode  # noqa: E402
from entailgen.training.scoring.unscorable import every_scored  # noqa: E402

SUMMAC_SETS = ("xsumfaith", "polytope", "summeval", "frank")
QUARTILES = 4


@dataclasses.dataclass(frozen=True)
class ArmModel(JudgedModel):
    """The detector as `evaluate --evidence ARM` judges it, its scorer the arm's (cells shared across arms)."""

    arms: Any = None
    arm: str = "E0"

    def scorer(self, granularity: str = "sentence"):
        return self.arms.scorer(self.arm)


def spans_test(arms: Arms, arm: str, spans_dir: str, detector: str) -> dict:
    """The spans benchmark's own run, on test (mixes fit on val), with the arm's scorer."""
    evidence, length = ARMS[arm]
    model = ArmModel(dir=detector, mode=ScoreMode(), precision=arms.precision, detector=arms.detector,
                     evidence=evidence, max_length=length, arms=arms, arm=arm)
    files = [os.path.join(spans_dir, f) for f in ("hallucination_annotations_xsum_summaries.csv",
                                                   "xsum_articles.jsonl")]
    run = spans.run(model, files)
    print(run.table, flush=True)
    return {"report": run.report}


def summac_test(arms: Arms, arm: str, paths: list[str], chunk: int = 64) -> dict:
    """Every row of the SummaC sets (val for thresholds, test for figures) scored by the arm, through SummaC's own
    evaluate_benchmark beside its baselines; each row's score and document length kept for the drift."""
    rows = distinct_rows(read_benchmark(paths))[0]
    pairs, scorer, scores, start = [(r.document, r.claim) for r in rows], arms.scorer(arm), [], time.time()
    for k in range(0, len(pairs), chunk):
        scores += [score_of(x) for x in scorer.scored(pairs[k:k + chunk])]
        print(f"{arm} summac: {len(scores)} / {len(pairs)} rows, {time.time() - start:.0f} s", file=sys.stderr,
              flush=True)
    scored = every_scored(scores)
    report = evaluate_benchmark(rows, {ROW: lambda _: scores, **BASELINES})
    kept = [{"dataset": r.dataset, "cut": r.cut, "label": r.label, "words": len(r.document.split()), "score": s}
            for r, s in zip(rows, scored)]
    return {"report": report, "rows": kept}


def by_length(rows: list[dict]) -> list[dict]:
    """Each set's test rows in quartiles of document length (words): ROC AUC and mean score per quartile, the mean
    over sets; a score that rises with length whatever the label is the drift the rule asks about."""
    quartiles = [{"roc_auc": [], "mean_score": [], "words": []} for _ in range(QUARTILES)]
    for ds in sorted({r["dataset"] for r in rows}):
        test = sorted((r for r in rows if r["dataset"] == ds and r["cut"] == "test"), key=lambda r: r["words"])
        for q in range(QUARTILES):
            part = test[q * len(test) // QUARTILES:(q + 1) * len(test) // QUARTILES]
            labels = [r["label"] for r in part]
            if 0 < sum(labels) < len(labels):
                quartiles[q]["roc_auc"].append(100 * roc_auc(labels, [r["score"] for r in part]))
            quartiles[q]["mean_score"].append(statistics.fmean(r["score"] for r in part))
            quartiles[q]["words"].append(part[-1]["words"])
    return [{k: round(statistics.fmean(v), 3 if k == "mean_score" else 1) if v else None for k, v in q.items()}
            for q in quartiles]


def _ci(triple, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{triple[0]:{sign}.1f} [{triple[1]:{sign}.1f}, {triple[2]:{sign}.1f}]"


def _gap(report: dict, model: str) -> list:
    return next(g["roc_auc"] for g in report["gaps"] if g["model"] == model and g["baseline"] == MIX)


def table(path: str) -> str:
    """The val figures the pick reads (per seed and their mean), the test figures, and the drift with length, as
    markdown tables."""
    with open(path) as f:
        got = {(r["seed"], r["set"], r["arm"]): r for r in map(json.loads, f)}
    seeds = sorted({k[0] for k in got})
    arms = [a for a in ARMS if any(k[2] == a for k in got)]
    val = ["| arm | seed | spans val word ROC AUC | SummaC val BA: " + " / ".join(SUMMAC_SETS[:3])
           + " | SummaC mean | the rule's figure |", "|---|---|---|---|---|---|"]
    test = ["| arm | seed | spans words | intrinsic | extrinsic | overlap mix | words + overlap over the mix | "
            "SummaC BA (over unigram) | XSumFaith BA (over unigram) | SummaC ROC AUC |", "|" + "---|" * 10]
    drift = ["| arm | seed | ROC AUC by length quartile (1 shortest) | mean score by quartile |", "|---|---|---|---|"]
    for arm in arms:
        figures = []
        for seed in seeds:
            sp, su = got.get((seed, "spans", arm)), got.get((seed, "summac", arm))
            if sp is None or su is None:
                continue
            rep, sac = sp["report"], su["report"]["scorers"][ROW]
            spans_val = rep["rules"][next(iter(rep["rules"]))]
            bas = [sac["per_dataset"][d]["val_balanced_accuracy"] for d in sac["per_dataset"]]
            figure = (spans_val + statistics.fmean(bas)) / 2
            figures.append(figure)
            val.append(f"| {arm} | {seed} | {spans_val:.1f} | {' / '.join(f'{b:.1f}' for b in bas)} | "
                       f"{statistics.fmean(bas):.1f} | {figure:.2f} |")
            kinds = rep["kinds"]
            xsf = sac["per_dataset"].get("xsumfaith", {})
            test.append(f"| {arm} | {seed} | {_ci(rep['scorers'][ROW]['roc_auc'])} | "
                        f"{kinds['intrinsic']['scorers'][ROW]['roc_auc'][0]:.1f} | "
                        f"{kinds['extrinsic']['scorers'][ROW]['roc_auc'][0]:.1f} | "
                        f"{rep['scorers'][MIX]['roc_auc'][0]:.1f} | {_ci(_gap(rep, f'{ROW} {WITH_OVERLAP}'), True)} | "
                        f"{sac['overall']['balanced_accuracy']:.1f} ({_ci(_as_triple(sac['gap_to_unigram']), True)}) | "
                        f"{xsf.get('balanced_accuracy', float('nan')):.1f} "
                        f"({_ci(_as_triple(xsf['gap_to_unigram']), True) if xsf else '-'}) | "
                        f"{sac['overall']['roc_auc']:.1f} |")
            quartiles = by_length(su["rows"])
            drift.append(f"| {arm} | {seed} | {' / '.join(str(q['roc_auc']) for q in quartiles)} | "
                         f"{' / '.join(str(q['mean_score']) for q in quartiles)} |")
        if figures:
            val.append(f"| **{arm}** | mean | | | | **{statistics.fmean(figures):.2f}** |")
    base = next((r for r in got.values() if r["set"] == "summac"), None)
    lines = ["Val (the pick):", *val, "", "Test (scored once per arm and seed):", *test]
    if base:
        u = base["report"]["scorers"][UNIGRAM]
        lines += [f"unigram overlap, the same SummaC rows: BA {u['overall']['balanced_accuracy']:.1f}, ROC AUC "
                  f"{u['overall']['roc_auc']:.1f}; XSumFaith BA {u['per_dataset']['xsumfaith']['balanced_accuracy']:.1f}"]
    lines += ["", "Drift with document length (SummaC test rows, each set's quartiles, the mean over sets):", *drift]
    return "\n".join(lines)


def _as_triple(gap: dict) -> list:
    return [gap["balanced_accuracy"], *gap["interval_95"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spans_dir")
    ap.add_argument("summac_dir")
    ap.add_argument("--detectors", required=True, help="SEED=DIR,... the detector trained with each seed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--arms", default="E0,E1")
    ap.add_argument("--table", action="store_true", help="print --out's figures so far; score nothing")
    args = ap.parse_args()
    if args.table:
        print(table(args.out))
        return 0
    done = scored_so_far(args.out, ("seed", "set", "arm"))
    paths = [p for p in (os.path.join(args.summac_dir, f"{s}.json") for s in SUMMAC_SETS) if os.path.exists(p)]
    for seed, detector in (d.split("=", 1) for d in args.detectors.split(",")):
        arms = Arms.of_detector(detector, resolved_precision("auto", "cpu"))
        for name in ("spans", "summac"):
            arms.forget()
            for arm in args.arms.split(","):
                if (int(seed), name, arm) in done:
                    continue
                start, cut = time.time(), arms.cut()
                figures = (spans_test(arms, arm, args.spans_dir, detector) if name == "spans"
                           else summac_test(arms, arm, paths))
                record = {"seed": int(seed), "set": name, "arm": arm, "evidence": ARMS[arm][0],
                          "max_length": ARMS[arm][1], "detector": detector, "seconds": round(time.time() - start, 1),
                          "premises_cut": arms.cut() - cut, **figures}
                with open(args.out, "a") as f:
                    f.write(json.dumps(record) + "\n")
                print(json.dumps({k: record[k] for k in ("seed", "set", "arm", "seconds")}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
