"""The overlap-blind trial (bench/trials/rules/overlap-blind.md): each new arm's model trained at seeds 0 and 1, each
scored on val alone through the whole-document scorer (`--evidence arcs`) by whole_document_val's spans_val and
summac_val, then one table of the val figures and the pick. Every stage is kept in --work and never run twice (a
model dir with train.json is trained; an (arm, seed, set) in --work/val.jsonl is scored), so a stopped run goes on.
`B0`, today's data, is the whole-document trial's E1 (--b0, --b0-s1: its records, read, not scored again).

    python bench/trials/overlap_blind.py --work W --spans SPANS_DIR --summac SUMMAC_DIR [--arms B1,B2] [--seeds 0,1]
    python bench/trials/overlap_blind.py --work W --table [--b0 results.jsonl --b0-s1 test.jsonl]
    python bench/trials/overlap_blind.py --work W --spans SPANS_DIR --joined MODEL MODEL   # exploratory: two joined
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: host.py
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/trials/: whole_document_val.py
import host  # noqa: E402
import whole_document_val as wd  # noqa: E402

from entailgen.training.benchmarks.spans import WITH_OVERLAP  # noqa: E402
from entailgen.training.fitting.model_dir import ModelDir  # noqa: E402
from entailgen.training.scoring.document_scorer import EnsembleScorer  # noqa: E402
from entailgen.training.scoring.precision import resolved_precision  # noqa: E402

ARMS = {"B1": ("dae-blind",), "B2": ("dae-blind", "da-blind"), "B3": ("dae-blind", "da-blind-filtered")}
SETS = ("spans", "xsumfaith")  # the pick figure's: spans val word ROC AUC, XSumFaith val balanced accuracy
ARM = "E1"  # whole_document_val's arm for --evidence arcs, the default scorer
MIXED = f"{wd.ROW} {WITH_OVERLAP}"  # the model's words with the overlap features: its gap over the overlap mix

log = functools.partial(host.log, "overlap-blind")
entailgen = functools.partial(host.entailgen, "overlap-blind")


def model_dir(work: Path, arm: str, seed: int) -> Path:
    return work / f"m-{arm}-seed{seed}"


def trained(work: Path, arm: str, seed: int) -> Path:
    """The arm's model at this seed, trained if missing: its datasets in proportion to their rows, at most 12,000 rows,
    1 epoch, MiniLM on CPU (the detector's member recipe)."""
    out = model_dir(work, arm, seed)
    if not (out / "train.json").is_file():
        entailgen("train", *(str(work / d) for d in ARMS[arm]), "--max-examples", "12000", "--epochs", "1",
                  "--seed", str(seed), "--device", "cpu", "--output", str(out), "--quiet")
    return out


def model_arms(model: Path, precision: str) -> wd.Arms:
    """whole_document_val's scorers over a trained model dir."""
    return wd.Arms(ModelDir.open(str(model)), precision)


class JoinedArms:
    """Two or more models read by the default scorer and joined as a detector joins its members (mean log-odds)."""

    def __init__(self, models: list[Path], precision: str):
        self.arms = [model_arms(m, precision) for m in models]

    def scorer(self, arm: str) -> EnsembleScorer:
        return EnsembleScorer([a.document(arm) for a in self.arms])


def scored(work: Path) -> dict[tuple[str, int, str], dict]:
    path = work / "val.jsonl"
    if not path.is_file():
        return {}
    return {(r["arm"], r["seed"], r["set"]): r for r in map(json.loads, path.read_text().splitlines())}


def score_val(work: Path, arm: str, seed: int, spans: str, summac: str) -> None:
    """The pick figure's sets on val, each (arm, seed, set) once, appended to --work/val.jsonl."""
    done, arms = scored(work), None
    for name in SETS:
        if (arm, seed, name) in done:
            continue
        arms = arms or model_arms(trained(work, arm, seed), resolved_precision("auto", "cpu"))
        start = time.time()
        figures = wd.spans_val(arms, ARM, spans) if name == "spans" else wd.summac_val(arms, ARM,
                                                                                           f"{summac}/{name}.json")
        record = {"arm": arm, "seed": seed, "set": name, "seconds": round(time.time() - start, 1), **figures}
        with open(work / "val.jsonl", "a") as f:
            f.write(json.dumps(record) + "\n")
        log(f"{arm} seed {seed} {name}: {time.time() - start:.0f} s")


def val_figures(records: list[dict]) -> dict:
    """(arm, seed) -> what the table reads: spans val word ROC AUC, on intrinsic- and extrinsic-marked words, and
    XSumFaith val balanced accuracy, from this trial's val.jsonl or B0's whole-document records."""
    out: dict = {}
    for r in records:
        got = out.setdefault((r["arm"], r["seed"]), {})
        if r["set"] == "spans":
            kinds = r["kinds"] if "kinds" in r else r["report"]["kinds"]
            got["spans"] = r["word_roc_auc"][0] if "word_roc_auc" in r else \
                r["report"]["scorers"][wd.ROW]["val_roc_auc"]
            got.update({k: kinds[k]["scorers"][wd.ROW]["val_roc_auc"] for k in ("intrinsic", "extrinsic")})
            if "gaps" in r:  # a val-only record's gaps are on val (stage 2's reports' are on test: not read)
                got["with_overlap"] = next(g["roc_auc"] for g in r["gaps"] if g["model"] == MIXED)
        else:
            got["xsumfaith"] = r["model"]["balanced_accuracy"] if "model" in r else \
                r["report"]["scorers"][wd.ROW]["per_dataset"]["xsumfaith"]["val_balanced_accuracy"]
    return out


def b0_records(seed0: Path, seed1: Path) -> list[dict]:
    """Today's arm: the whole-document trial's E1 on val (seed 0: stage 1's results.jsonl, val alone; seed 1: stage
    2's test.jsonl, whose reports keep each figure's val value beside its test one)."""
    rows = [dict(r, seed=0) for r in map(json.loads, seed0.read_text().splitlines())
            if r["arm"] == ARM and r["set"] in SETS]
    rows += [r for r in map(json.loads, seed1.read_text().splitlines()) if r["arm"] == ARM and r["seed"] == 1]
    return [dict(r, arm="B0", set="xsumfaith" if r["set"] == "summac" else r["set"]) for r in rows]


def table(figures: dict) -> str:
    """The val figures per arm and seed, and the pick: the highest two-seed mean of the pick figure (the mean of
    spans' val word ROC AUC and XSumFaith's val balanced accuracy; a tie within 0.1 to the earlier arm)."""
    lines = ["| arm | seed | spans val words | intrinsic | extrinsic | words + overlap over the mix | XSumFaith val BA "
             "| pick figure |", "|---|---|---|---|---|---|---|---|"]
    means = {}
    for arm in ("B0", *ARMS):
        picks = []
        for seed in (0, 1):
            f = figures.get((arm, seed), {})
            if "spans" in f and "xsumfaith" in f:
                picks.append((f["spans"] + f["xsumfaith"]) / 2)
                gap = f.get("with_overlap")
                gap = "-" if gap is None else f"{gap[0]:+.1f} [{gap[1]:+.1f}, {gap[2]:+.1f}]"
                lines.append(f"| {arm} | {seed} | {f['spans']:.1f} | {f['intrinsic']:.1f} | {f['extrinsic']:.1f} | "
                             f"{gap} | {f['xsumfaith']:.1f} | {picks[-1]:.2f} |")
        if len(picks) == 2:
            means[arm] = sum(picks) / 2
    if means:
        best = max(means.values())
        pick = next(a for a in means if means[a] >= best - 0.1)
        lines.append(f"\nval pick among the arms with both seeds: {pick} ("
                     + ", ".join(f"{a} {v:.2f}" for a, v in means.items()) + ")")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--spans", help="the spans benchmark's dir (its CSV and xsum_articles.jsonl)")
    ap.add_argument("--summac", help="the SummaC sets' dir (benchmarks fetch summac)")
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--table", action="store_true", help="print the val figures so far and the pick; score nothing")
    ap.add_argument("--b0", type=Path, help="the whole-document trial's stage-1 results.jsonl (B0 at seed 0)")
    ap.add_argument("--b0-s1", type=Path, help="its stage-2 records of the seed-1 member on val (B0 at seed 1)")
    ap.add_argument("--joined", type=Path, nargs="+", metavar="MODEL_DIR",
                    help="exploratory, after the pick: these models joined, spans val alone, to --work/joined.jsonl")
    args = ap.parse_args()
    if args.joined:
        figures = wd.spans_val(JoinedArms(args.joined, resolved_precision("auto", "cpu")), ARM, args.spans)
        with open(args.work / "joined.jsonl", "a") as f:
            f.write(json.dumps({"models": [str(m) for m in args.joined], **figures}) + "\n")
        return 0
    if args.table:
        b0 = b0_records(args.b0, args.b0_s1) if args.b0 and args.b0_s1 else []
        print(table(val_figures([*b0, *scored(args.work).values()])))
        return 0
    if not (args.spans and args.summac):
        ap.error("--spans and --summac are needed to score")
    for seed in map(int, args.seeds.split(",")):
        for arm in args.arms.split(","):
            score_val(args.work, arm, seed, args.spans, args.summac)
    return 0


if __name__ == "__main__":
    sys.exit(main())
