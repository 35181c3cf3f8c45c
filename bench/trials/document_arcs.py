"""Issue 64's preregistered trial (bench/trials/rules/document-arcs.md), stage by stage, each kept in --work and never
run twice: the DAE member (A0), the document-arcs datasets, the arms trained on them, each arm scored once on every
yardstick given (spans for every arm first, then SummaC, rank19 and TRUE), then one table of what the reports say.
On 2 cores an arm's dataset takes about 6 min, its training 6 (idle) to 25 (shared), spans 5 and SummaC's 7,413 rows
25 to 50 (its scores cached a chunk at a time), so a stopped run goes on where it stopped: run the same command again.

    python bench/trials/document_arcs.py --work W --bbc bbc.jsonl --summac summac-data --spans SPANS.csv \
        --articles xsum_articles.jsonl [--rank19 summary_pairs.json] [--true q2.csv] [--arms A0 A1 ...] [--seeds 1 2]
    python bench/trials/document_arcs.py --work W --table          # the reports so far, as the page's table
"""
from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
import host  # noqa: E402 (bench/host.py)

RULES = ("evidence_removal", "recombination", "restatement", "extrinsic_attachment")
SETS = ("xsumfaith", "polytope", "summeval", "frank")
# arm -> the document-arcs rules its data holds (None: the DAE member alone) and whether dae rows are mixed in
ARMS = {"A0": (None, True), "A1": (RULES, True),
        **{f"A1-{rule}": (tuple(r for r in RULES if r != rule), True) for rule in RULES},
        "A2": (RULES, False)}

SEEDED = "A1"  # the arm --seeds trains again: each ablation is A1 less one rule

log = functools.partial(host.log, "document-arcs")
entailgen = functools.partial(host.entailgen, "document-arcs")


def detector(opts) -> Path:
    """A0: `entailgen detector --members dae` on the BBC articles, less every benchmark article (the cross-set guard)."""
    out = opts.work / "det"
    if not (out / "detector.json").is_file():  # a killed build resumes itself
        entailgen("detector", "--members", "dae", "--input", str(opts.bbc), "--output", str(out), "--device", "cpu",
                  "--exclude-documents", str(opts.articles), *(str(opts.summac / f"{s}.json") for s in SETS))
    return out


def data_dir(opts, rules) -> Path:
    """Where the document-arcs dataset of these rules is built."""
    return opts.work / f"da-{','.join(rules)}"


def build_data(opts, arm: str, wait: bool = True) -> Optional[subprocess.Popen]:
    """The arm's document-arcs dataset (`run document-arcs --rules`); wait=False starts it in the background and
    returns the process (the next arm's data is made while this arm trains and is scored)."""
    rules = ARMS[arm][0]
    data = None if rules is None else data_dir(opts, rules)
    if data is None or (data / "manifest.json").is_file():
        return None
    args = ["run", "document-arcs", "--input", str(opts.work / "det" / "inputs" / "*"), "--rules", ",".join(rules),
            "--output", str(data), "--seed", "0", "--overwrite", "--quiet"]
    if wait:
        entailgen(*args)
        return None
    log("entailgen " + " ".join(args) + " (in the background)")
    return subprocess.Popen([sys.executable, "-m", "entailgen.runners.cli", *args])


def model_dir(opts, arm: str, seed: int = 0) -> Path:
    """Where the arm's model is: A0 is the detector's DAE member, the others are trained by arm_model (a training
    seed other than the rule's 0 in a dir of its own)."""
    if ARMS[arm][0] is None:
        return opts.work / "det/members/dae-arcs"
    return opts.work / (f"m-{arm}-seed{seed}" if seed else f"m-{arm}")


def arm_model(opts, arm: str, seed: int = 0) -> Path:
    """The arm's model dir, made if missing: A0 is the detector's member; the others are trained on dae +
    document-arcs rows 1:1 (A2: document-arcs alone), 12,000 rows, 1 epoch, seed 0 (the rule's; another for
    --seeds), as the detector trains its member."""
    det = detector(opts)
    rules, with_dae = ARMS[arm]
    out = model_dir(opts, arm, seed)
    if rules is None:
        return out
    build_data(opts, arm)
    if not (out / "train.json").is_file():  # a killed training resumes itself
        datasets = [str(det / "datasets" / "dae"), str(data_dir(opts, rules))] if with_dae else \
            [str(data_dir(opts, rules))]
        entailgen("train", *datasets, *(("--mix", "dae=1,document-arcs=1") if with_dae else ()),
                  "--max-examples", "12000", "--epochs", "1", "--seed", str(seed), "--device", "cpu",
                  "--output", str(out), "--quiet")
    return out


def reports(model: Path) -> dict[str, dict]:
    """The model's saved benchmark reports by yardstick (a pilot's val-only report is not one)."""
    found = {}
    for path in sorted(model.glob("eval/benchmark-*.json")):
        if not path.stem.endswith("-val"):
            report = json.loads(path.read_text())
            found[report["benchmark"]] = report
    return found


def score(opts, arm: str, names, seed: int = 0) -> None:
    """These yardsticks once each: a report already saved in the model's eval/ is not scored again."""
    model = arm_model(opts, arm, seed)
    done = reports(model)
    files = {"spans": [str(opts.spans), "--articles", str(opts.articles)],
             "summac": [str(opts.summac / f"{s}.json") for s in SETS],
             "rank19": [str(opts.rank19)] if opts.rank19 else None,
             "true": [str(opts.true)] if opts.true else None}
    for name in names:
        if files[name] and name not in done:
            entailgen("evaluate", str(model), "--benchmark", name, *files[name], "--device", "cpu")


MODEL, MIX = "entailgen model", "overlap mix (weights fit on val)"  # evaluate --benchmark spans' rows
WITH = "entailgen model with the overlap features (weights fit on val)"
UNIGRAM, DEPENDENCY = "unigram overlap", "dependency arcs (rule)"  # rank19's and TRUE's baselines


def figure(values) -> str:
    """A figure with its 95% interval, from [value, low, high] in a report."""
    return f"{values[0]:.1f} [{values[1]:.1f}, {values[2]:.1f}]"


def summac_model(report: dict) -> dict:
    """The model's figures in a SummaC report (its other rows are the overlap baselines)."""
    return next(v for k, v in report["scorers"].items() if "overlap" not in k)


def summac_val(report: dict) -> float:
    """The model's mean val balanced accuracy over the sets: what the pick reads."""
    val = [d["val_balanced_accuracy"] for d in summac_model(report)["per_dataset"].values()]
    return sum(val) / len(val)


def cells(got: dict) -> list[str]:
    """An arm's cells from its reports ('-' where a yardstick is not scored yet)."""
    out = ["-"] * 9
    if "spans" in got:
        spans = got["spans"]
        model, mix = spans["scorers"][MODEL], spans["scorers"][MIX]
        with_overlap = next(g["roc_auc"] for g in spans["gaps"] if g["model"] == WITH)
        kind = {k: spans["kinds"][k]["scorers"] for k in ("intrinsic", "extrinsic")}
        out[:4] = [f"{figure(model['roc_auc'])} ({mix['roc_auc'][0]:.1f})", f"{model['val_roc_auc']:.1f}",
                   " / ".join(f"{kind[k][MODEL]['roc_auc'][0]:.1f} ({kind[k][MIX]['roc_auc'][0]:.1f})" for k in kind),
                   f"{with_overlap[0]:+.1f} [{with_overlap[1]:+.1f}, {with_overlap[2]:+.1f}]"]
    if "summac" in got:
        s, unigram = summac_model(got["summac"]), got["summac"]["scorers"][UNIGRAM]
        gap = s["gap_to_unigram"]
        low, high = gap["interval_95"]
        out[4:7] = [f"{s['overall']['balanced_accuracy']:.1f} ({unigram['overall']['balanced_accuracy']:.1f}),"
                    f" gap {gap['balanced_accuracy']:+.1f} [{low:+.1f}, {high:+.1f}]",
                    f"{summac_val(got['summac']):.1f}", f"{s['overall']['roc_auc']:.1f}"]
    if "rank19" in got:
        ranked = got["rank19"]["scorers"]
        model = next(v for k, v in ranked.items() if k not in (UNIGRAM, DEPENDENCY))
        out[7] = f"{figure([model['accuracy'], *model['interval']])} ({ranked[DEPENDENCY]['accuracy']:.1f})"
    if "true" in got:
        q2 = next(iter(got["true"]["files"].values()))["scorers"]
        model = next(v for k, v in q2.items() if k != UNIGRAM)
        out[8] = f"{figure([model['roc_auc'], *model['interval']])} ({q2[UNIGRAM]['roc_auc']:.1f})"
    return out


def table(opts) -> str:
    """One row per arm scored so far: each yardstick's model figure beside its baseline, and the val figures the pick
    reads (spans val word ROC AUC, SummaC's mean val balanced accuracy)."""
    lines = ["| arm | spans word ROC AUC [95%] (overlap mix) | spans val | intrinsic / extrinsic words (mix) | "
             "with overlap minus mix | SummaC bal. acc. (unigram overlap) | SummaC val | SummaC ROC AUC | "
             "rank19 accuracy (arc rule) | TRUE Q2 ROC AUC (unigram overlap) |", "|---|" + "---|" * 9]
    by_arm = {arm: reports(model_dir(opts, arm)) for arm in ARMS}
    lines += [f"| {arm} | " + " | ".join(cells(got)) + " |" for arm, got in by_arm.items() if got]
    seeds = sorted(int(d.name.rsplit("seed", 1)[1]) for d in opts.work.glob(f"m-{SEEDED}-seed*"))
    lines += [f"| {SEEDED}, seed {s} (--seeds) | " + " | ".join(cells(got)) + " |" for s in seeds
              if (got := reports(model_dir(opts, SEEDED, s)))]
    return "\n".join(lines + ["", val_pick(by_arm)])


def val_pick(by_arm: dict[str, dict]) -> str:
    """The preregistered pick among the arms' reports: the highest mean of spans' val word ROC AUC and SummaC's mean
    val balanced accuracy; a tie to the arm with fewer rules, A0 first. Said only once every arm has both."""
    waiting = [arm for arm, got in by_arm.items() if "spans" not in got or "summac" not in got]
    means = {arm: (got["spans"]["scorers"][MODEL]["val_roc_auc"] + summac_val(got["summac"])) / 2
             for arm, got in by_arm.items() if arm not in waiting}
    if waiting:
        return f"val pick: waits for {', '.join(waiting)} (spans and SummaC)"
    order = list(ARMS)
    pick = min(means, key=lambda a: (-means[a], len(ARMS[a][0] or ()), order.index(a)))
    return f"val pick: {pick} ({', '.join(f'{a} {v:.2f}' for a, v in means.items())})"


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--work", type=Path, required=True)
    args.add_argument("--bbc", type=Path)
    args.add_argument("--summac", type=Path, help="the four sets (benchmarks fetch summac)")
    args.add_argument("--spans", type=Path, help="hallucination_annotations_xsum_summaries.csv")
    args.add_argument("--articles", type=Path, help="the spans trial's XSum articles (JSON Lines)")
    args.add_argument("--rank19", type=Path, help="summary_pairs.json (benchmarks fetch rank19)")
    args.add_argument("--true", type=Path, help="TRUE's q2.csv (benchmarks fetch true)")
    args.add_argument("--arms", nargs="+", choices=list(ARMS), default=list(ARMS))
    args.add_argument("--seeds", nargs="+", type=int, default=[], metavar="SEED",
                      help=f"{SEEDED} trained again with these training seeds and scored on spans, after the rule's "
                           "stages: the seed-to-seed spread the per-rule moves are read against (not in the rule, "
                           "never picked)")
    args.add_argument("--table", action="store_true", help="print the table of the reports so far and stop")
    opts = args.parse_args()
    if opts.table:
        print(table(opts))
        return 0
    if any(seed < 1 for seed in opts.seeds):
        args.error("--seeds: training seeds other than the rule's 0, each 1 or more")
    missing = [f"--{n}" for n in ("bbc", "summac", "spans", "articles") if getattr(opts, n) is None]
    if missing:
        args.error(f"{', '.join(missing)} needed to train and score")
    opts.work.mkdir(parents=True, exist_ok=True)
    print(host.describe(f"arms {', '.join(opts.arms)}"), flush=True)
    for names in (("spans",), ("summac", "rank19", "true")):  # spans, the cheapest, for every arm first
        for k, arm in enumerate(opts.arms):
            after = build_data(opts, opts.arms[k + 1], wait=False) if k + 1 < len(opts.arms) else None
            score(opts, arm, names)
            if after is not None and after.wait() != 0:
                raise SystemExit(f"document-arcs bench: {opts.arms[k + 1]}'s dataset build exited {after.returncode}")
            log(f"{arm} scored on {', '.join(names)}")
    for seed in opts.seeds:
        score(opts, SEEDED, ("spans",), seed)
        log(f"{SEEDED} with training seed {seed} scored on spans")
    print(table(opts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
