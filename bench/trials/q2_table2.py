"""With a Little Push's Table 2 (Steen et al. 2023) on entailgen data alone (issue 40, item 5): one 3-way recipe
without and with dialogue augmentation, with e-c scoring, with MC dropout; ROC AUC on TRUE's dialogue files, each
method's paired bootstrap gap to the base, unigram overlap on the same rows. The rule, written before Q2 was scored:
bench/trials/rules/q2-table2.md.

The stages are what a user runs: `entailgen run nli-dialogue` over a finished claims dataset (with dialogue copies,
and `--no-copies` for the base), `entailgen train` (a 3-way model: every pair keeps the label3 its making says), then
each arm's scores through the scorers' Python API (`DocumentScorer`, as `evaluate --benchmark true` scores: a
one-sentence grounding as one pair, a longer one as a document), kept per arm and file in --work so a rerun scores
nothing twice. Dev files (--dev begin_dev.csv) are scored with the one-pass arms (MC dropout's 8 passes over BEGIN's
document groundings would take hours on 2 cores); the --files (Q2, once the rule is written) with every arm.

Usage: python bench/trials/q2_table2.py --claims CLAIMS_DATASET --documents DOCS.jsonl --work DIR [--dev FILE.csv...]
       [--files FILE.csv...] [--encoder DIR] [--arms ARM...]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the helpers trials share with it
import host  # noqa: E402 (bench/host.py)

BENCH = "q2-table2"
EXAMPLES, EPOCHS = 4000, 1  # the base's training rows (the dialogue model: twice as many) and epochs
# Table 2's rows: (arm, model, score, MC dropout passes); the first is the base every other is compared with
ARMS = (("base", "base", "e", 0), ("+ e-c", "base", "e-c", 0), ("+ MC dropout", "base", "e", 8),
        ("+ dialogue augmentation", "dialogue", "e", 0), ("all three", "dialogue", "e-c", 8))
# Steen et al. 2023, Table 2: each method alone on their base NLI model, Q2's ROC AUC gap (DialFact, BEGIN beside)
PAPER_GAPS = {"+ e-c": 6.5, "+ MC dropout": 0.0, "+ dialogue augmentation": 4.2, "all three": 9.6}


def datasets(opts) -> dict[str, Path]:
    """The claims dataset's 3-way pairs without (base) and with (dialogue) dialogue copies."""
    made = {"base": opts.work / "pairs", "dialogue": opts.work / "pairs-dialogue"}
    for name, out in made.items():
        if not (out / "manifest.json").is_file():
            host.entailgen(BENCH, "run", "nli-dialogue", "--input", str(opts.claims), "--output", str(out),
                           "--overwrite", "--quiet", *(("--no-copies",) if name == "base" else ()))
    return made


def models(opts, pairs: dict[str, Path], seed: int = 0) -> dict[str, Path]:
    """The base (opts.examples rows of its pairs) and the dialogue model (twice as many: its pairs plus copies), at a
    training seed (0: Table 2's; others for bench/trials/q2_seeds.py, in models/<name>-s<seed>) and encoder (the packaged
    one, or --encoder's, in models/<name>-<its folder's name>)."""
    encoder = getattr(opts, "encoder", None)
    made = {name: opts.work / "models" / "-".join([name, *([Path(encoder).name] if encoder else []),
                                                  *([f"s{seed}"] if seed else [])]) for name in pairs}
    for name, out in made.items():
        if not (out / "train.json").is_file():  # written once training is done
            examples = opts.examples * (2 if name == "dialogue" else 1)
            host.entailgen(BENCH, "train", str(pairs[name]), "--output", str(out), "--epochs", str(opts.epochs),
                           "--max-examples", str(examples), "--seed", str(seed), "--overwrite",
                           *(("--encoder", encoder) if encoder else ()))
    return made


def check_held_out(documents: Path, files: dict[str, list], bench: str = BENCH) -> None:
    """Refuse a run whose training documents are, or hold, a grounding of the files (training/benchmarks/held_out.py's
    normalised text: a one-sentence grounding inside a document counts too)."""
    from entailgen.training.benchmarks.held_out import HeldOut, normalised

    groundings = {r.grounding for rows in files.values() for r in rows}
    held, parts = HeldOut(groundings), {normalised(g) for g in groundings}
    texts = [json.loads(line)["text"] for line in documents.read_text(encoding="utf-8").splitlines() if line.strip()]
    inside = sum(text in held or any(p in whole for p in parts) for text, whole in zip(texts, map(normalised, texts)))
    host.log(bench, f"training documents: {len(texts)}, of them a grounding of the files or holding one: {inside}")
    if inside:
        raise SystemExit(f"{bench}: {inside} training documents are or hold groundings of the scored files")


def arm_scores(opts, arm: tuple, model: Path, name: str, rows: list, bench: str = BENCH) -> list[float]:
    """The arm's score per row (an unscorable row 0.0, the lowest), from --work's cache or scored now."""
    from entailgen.training.scoring.document_scorer import DocumentScorer
    from entailgen.training.benchmarks.true import model_scores
    from entailgen.training.scoring.unscorable import Unscorable

    label, _, score, passes = arm
    rows_key = hashlib.sha256(json.dumps([r[:2] for r in rows]).encode()).hexdigest()[:12]
    cache = opts.work / "scores" / f"{Path(name).stem}-{rows_key}-{model.name}-{score}-mc{passes}.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    host.log(bench, f"{Path(name).name}: scoring {label} ({len(rows)} rows)")
    scorer = DocumentScorer(str(model), "sentence", device="cpu", score=score, mc_dropout=passes, seed=0,
                            precision="fp32")
    scores = [0.0 if isinstance(s, Unscorable) else float(s) for s in model_scores(rows, scorer)[0]]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(scores))
    return scores


def table(report: dict) -> str:
    """Markdown: an arm a row, per file its ROC AUC [interval] and its gap to the base [paired interval]."""
    names = list(report["files"])
    head = "| arm | " + " | ".join(f"{Path(n).name}: ROC AUC | gap to base" for n in names) + " | paper's Q2 gap |"
    lines = [head, "|" + "---|" * (2 * len(names) + 2)]
    for arm in [a[0] for a in ARMS] + ["unigram overlap"]:
        cells = []
        for n in names:
            r = report["files"][n].get(arm)  # a dev file has no MC dropout arm
            gap = r and r.get("gap")
            cells += [f"{r['roc_auc']:.1f} [{r['interval'][0]:.1f}, {r['interval'][1]:.1f}]" if r else "-",
                      f"{gap[0]:+.1f} [{gap[1]:+.1f}, {gap[2]:+.1f}]" if gap else "-"]
        paper = PAPER_GAPS.get(arm)
        lines.append(f"| {arm} | " + " | ".join(cells) + f" | {f'{paper:+.1f}' if paper is not None else '-'} |")
    return "\n".join(lines)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--claims", type=Path, required=True, help="a finished claims dataset (entailgen run claims)")
    args.add_argument("--documents", type=Path, required=True,
                      help="the JSON lines the claims were made from (checked against the files' groundings)")
    args.add_argument("--dev", nargs="+", default=[], metavar="CSV",
                      help="TRUE-layout dev files, scored with the one-pass arms")
    args.add_argument("--files", nargs="+", default=[], metavar="CSV", help="TRUE-layout files scored with every arm")
    args.add_argument("--work", type=Path, default=Path.home() / ".cache" / "entailgen" / BENCH)
    args.add_argument("--examples", type=int, default=EXAMPLES,
                      help="the base's training rows (the dialogue model: twice as many, its copies beside)")
    args.add_argument("--epochs", type=int, default=EPOCHS)
    args.add_argument("--encoder", help="train's --encoder (default: the packaged one)")
    args.add_argument("--arms", nargs="+", choices=[a[0] for a in ARMS], default=[a[0] for a in ARMS],
                      metavar="ARM", help="the arms scored (default: all; the base is always scored)")
    opts = args.parse_args()
    from entailgen.training.benchmarks.baselines import unigram_overlap_scores
    from entailgen.training.benchmarks.metrics import auc_gap, auc_interval
    from entailgen.training.benchmarks.true import read_true

    report = {"machine": host.describe(), "rule": "bench/trials/rules/q2-table2.md", "files": {}}
    files = {name: read_true(name) for name in opts.dev + opts.files}
    check_held_out(opts.documents, files)
    trained = models(opts, datasets(opts))
    for name, rows in files.items():
        labels = [r.label for r in rows]
        arms = [arm for arm in ARMS if (name in opts.files or not arm[3]) and (arm is ARMS[0] or arm[0] in opts.arms)]
        scores = {arm[0]: arm_scores(opts, arm, trained[arm[1]], name, rows) for arm in arms}
        scores["unigram overlap"] = unigram_overlap_scores([(r.grounding, r.response) for r in rows])
        base = scores[ARMS[0][0]]
        report["files"][name] = {
            arm: {"roc_auc": auc, "interval": [low, high],
                  **({"gap": list(auc_gap(labels, s, base))} if arm != ARMS[0][0] else {})}
            for arm, s in scores.items() for auc, low, high in [auc_interval(labels, s)]}
    (opts.work / "table2.json").write_text(json.dumps(report, indent=1))
    print(report["machine"])
    print(table(report))


if __name__ == "__main__":
    main()
