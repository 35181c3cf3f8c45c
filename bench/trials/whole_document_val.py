"""Stage 1 of the whole-document trial (bench/trials/rules/whole-document.md), on val alone: each arm's spans val word
ROC AUC (the default word rule, beside the overlap mix on the same words) and SummaC val balanced accuracy per set
(threshold fit on the same val rows, the `val_balanced_accuracy` the rule picks on), with the seconds each took.

One detector, scored as `evaluate --benchmark ... --evidence ARM` would score it (its one member's DocumentScorer
joined as the detector joins it; the CLI has no --evidence yet). No test row is scored: spans runs `--val-only`, and
of SummaC's rows only those cut val are handed to the scorer. The arms that read the same cells (E0 and E1 read every
block of every row at the model's own length; a summary both benchmarks hold) score each cell once: a cell's result
does not depend on what else is scored. Each (set, arm) is appended to --out as it ends, so a rerun goes on.
Usage: python bench/trials/whole_document_val.py DETECTOR SPANS_DIR SUMMAC_DIR --out results.jsonl [--arms E0,E2]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from entailgen.training.benchmarks.baselines import unigram_overlap_scores
from entailgen.training.benchmarks.metrics import balanced_accuracy, choose_threshold, roc_auc
from entailgen.training.benchmarks.summac import distinct_rows, read_benchmark
from entailgen.training.scoring.detector import DetectorDir
from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer, score_of
from entailgen.training.scoring.precision import resolved_precision
from entailgen.training.scoring.scorers import ArcPairScores, DaeScorer
from entailgen.training.scoring.unscorable import every_scored

ARMS = {"E0": ("block", None), "E1": ("arcs", None), "E2": ("packed", 256), "E3": ("packed", 512),
        "E4": ("chunks", 512)}  # the rule's arms: --evidence, --max-length (None: the model's own, 128)
ROW = "entailgen detector"  # the detector's row in the spans report, as evaluate names it
SETS = ("spans", "xsumfaith", "polytope", "summeval", "frank")


class Remembered:
    """A DaeScorer whose cells, once scored, are read back instead of scored again (what else a call holds does not
    change a cell's result: each distinct pair is scored on its own)."""

    def __init__(self, scorer: DaeScorer):
        self.scorer, self.seen = scorer, {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.scorer, name)

    def score_cells(self, pairs):
        missing = [p for p in dict.fromkeys(pairs) if p not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.scorer.score_cells(missing)))
        return [self.seen[p] for p in pairs]


class Arms:
    """Each arm's scorer: one DAE arc model (a one-member detector's member) read by the arm's evidence mode, one
    DaeScorer per length."""

    def __init__(self, member, precision: str, detector: DetectorDir | None = None):
        self.member, self.precision, self.detector = member, precision, detector
        self.scorers: dict = {}
        self.first: DocumentScorer | None = None

    @classmethod
    def of_detector(cls, detector: str, precision: str) -> "Arms":
        """The arms of a detector built with one member (--members dae)."""
        opened = DetectorDir.open(detector)
        if len(opened.members) != 1:
            raise SystemExit(f"{detector}: this trial's detector has one member (--members dae)")
        return cls(opened.members[0], precision, opened)

    def scorer(self, arm: str) -> EnsembleScorer:
        return EnsembleScorer([self.document(arm)])

    def document(self, arm: str) -> DocumentScorer:
        """The model read by the arm's evidence mode, its cells and parses shared with the other arms."""
        evidence, length = ARMS[arm]
        if length not in self.scorers:
            self.scorers[length] = Remembered(DaeScorer(self.member, device="cpu", precision=self.precision,
                                                        max_length=length))
        document = DocumentScorer(self.member, "sentence", device="cpu", evidence=evidence, max_length=length,
                                  pair_scores=ArcPairScores(self.scorers[length]))
        if self.first is None:
            self.first = document
        else:  # one parse of each document for every arm: all read sentences
            document.parsed, document.__dict__["parser"] = self.first.parsed, self.first.parser
        return document

    def forget(self) -> None:
        """The remembered cells dropped: the next set shares none."""
        for s in self.scorers.values():
            s.seen = {}

    def cut(self) -> int:
        return sum(s.scorer.cut for s in self.scorers.values())


def spans_val(arms: Arms, arm: str, spans_dir: str) -> dict:
    """`evaluate DETECTOR --benchmark spans ... --val-only` with the arm's scorer (runners/evaluate.py's steps): the
    val documents' words scored, beside the overlap baselines and mixes fit on the same words."""
    from entailgen.training.benchmarks.spans import (OVERLAP_MIX, RULES, SUMMARY_SCORE, VAL, WITH_OVERLAP,
                                                     check_cuts, evaluate_spans, format_spans, model_word_scores,
                                                     overlap_scorers, read_articles, read_spans, val_roc_auc,
                                                     with_articles, with_overlap)

    annotated, placement = read_spans(os.path.join(spans_dir, "hallucination_annotations_xsum_summaries.csv"))
    summaries, left_out = with_articles(annotated, read_articles(os.path.join(spans_dir, "xsum_articles.jsonl")))
    summaries = [s for s in summaries if s.cut == VAL]  # the test documents' summaries are never scored
    check_cuts(summaries, (VAL,))
    by_rule, own, unscorable = model_word_scores(arms.scorer(arm), summaries, progress=lambda done, total: print(
        f"{arm} spans: explained {done} / {total} summaries", file=sys.stderr, flush=True))
    default, baselines = next(iter(RULES)), overlap_scorers(summaries)
    mixed = f"{ROW} {WITH_OVERLAP}"
    scores = {ROW: by_rule[default], f"{ROW}: {SUMMARY_SCORE}": own, **baselines,
              mixed: with_overlap(summaries, by_rule[default], own)}
    report = evaluate_spans(summaries, scores, compare=[(ROW, [*baselines, f"{ROW}: {SUMMARY_SCORE}"]),
                                                        (mixed, [OVERLAP_MIX])], left_out=left_out,
                            placement=placement, on=VAL)
    report["rules"] = {name: val_roc_auc(summaries, values) for name, values in by_rule.items()}
    report["unscorable"] = unscorable
    print(format_spans(report), flush=True)
    scorers = report["scorers"]
    return {"word_roc_auc": scorers[ROW]["roc_auc"], "overlap_mix": scorers[OVERLAP_MIX]["roc_auc"],
            "rules": report["rules"], "unscorable": unscorable,
            "scorers": {n: v["roc_auc"] for n, v in scorers.items()}, "kinds": report["kinds"],
            "gaps": report["gaps"], "summaries": report["summaries"], "words": report["words"]}


def summac_val(arms: Arms, arm: str, path: str, chunk: int = 64) -> dict:
    """One SummaC set's val rows alone scored by the arm: balanced accuracy (threshold fit on them) and ROC AUC,
    beside unigram overlap on the same rows."""
    rows = [r for r in distinct_rows(read_benchmark([path]))[0] if r.cut == "val"]
    pairs, scorer, scores = [(r.document, r.claim) for r in rows], arms.scorer(arm), []
    start = time.time()
    for k in range(0, len(pairs), chunk):
        scores += [score_of(x) for x in scorer.scored(pairs[k:k + chunk])]
        print(f"{arm} {os.path.basename(path)}: {len(scores)} / {len(pairs)} val rows, {time.time() - start:.0f} s",
              file=sys.stderr, flush=True)
    unscorable = sum(not isinstance(s, float) for s in scores)
    y, figures = [r.label for r in rows], {}
    for name, values in (("model", every_scored(scores)), ("unigram overlap", unigram_overlap_scores(pairs))):
        t = choose_threshold(y, values)
        figures[name] = {"balanced_accuracy": round(100 * balanced_accuracy(y, [int(v > t) for v in values]), 1),
                         "roc_auc": round(100 * roc_auc(y, values), 1)}
    return {**figures, "rows": len(rows), "consistent": sum(y), "unscorable": unscorable}


CHEAPER = ("E0", "E1", "E2", "E4", "E3")  # the rule's tie order


def scored_so_far(path: str, keys: tuple[str, ...]) -> set:
    """The records --out already holds, by keys: a rerun goes on where the last one stopped."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {tuple(r[k] for k in keys) for r in map(json.loads, f)}


def table(path: str) -> str:
    """The arms' val figures so far as a markdown table, and the pick by the rule: the highest mean of spans' val
    word ROC AUC and SummaC's mean val balanced accuracy over its sets (a tie within 0.1 to the cheaper arm)."""
    with open(path) as f:
        got = {(r["set"], r["arm"]): r for r in map(json.loads, f)}
    sets = [s for s in SETS if any(k[0] == s for k in got)]
    lines = ["| arm | " + " | ".join(f"{s} val {'word ROC AUC' if s == 'spans' else 'BA'}" for s in sets)
             + " | SummaC mean | pick mean | seconds |", "|---|" + "---|" * (len(sets) + 3)]
    means = {}
    for arm in ARMS:
        rows = {s: got.get((s, arm)) for s in sets}
        cells = [("-" if r is None else f"{r['word_roc_auc'][0]:.1f}" if s == "spans" else
                  f"{r['model']['balanced_accuracy']:.1f}") for s, r in rows.items()]
        summac = [r["model"]["balanced_accuracy"] for s, r in rows.items() if s != "spans" and r is not None]
        full = all(r is not None for r in rows.values()) and summac and rows.get("spans")
        mean = (rows["spans"]["word_roc_auc"][0] + sum(summac) / len(summac)) / 2 if full else None
        if mean is not None:
            means[arm] = mean
        label = f"{arm} {ARMS[arm][0]}" + (f" {ARMS[arm][1]}" if ARMS[arm][1] else "")
        seconds = sum(r["seconds"] for r in rows.values() if r)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {f'{sum(summac) / len(summac):.1f}' if summac else '-'}"
                     f" | {f'{mean:.2f}' if mean is not None else '-'} | {seconds:.0f} |")
    for s in sets:
        base = next((r for (t, _), r in got.items() if t == s), None)
        lines.append(f"baseline on the same rows, {s}: " + (f"overlap mix {base['overlap_mix'][0]:.1f}" if s == "spans"
                     else f"unigram overlap BA {base['unigram overlap']['balanced_accuracy']:.1f}"))
    if means:
        best = max(means.values())
        pick = next(a for a in CHEAPER if a in means and means[a] >= best - 0.1)
        lines.append(f"val pick among the arms with every set: {pick} ("
                     + ", ".join(f"{a} {v:.2f}" for a, v in means.items()) + ")")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("detector")
    ap.add_argument("spans_dir")
    ap.add_argument("summac_dir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--table", action="store_true", help="print --out's figures so far and the pick; score nothing")
    args = ap.parse_args()
    if args.table:
        print(table(args.out))
        return 0
    done = scored_so_far(args.out, ("set", "arm"))
    precision = resolved_precision("auto", "cpu")
    arms = Arms.of_detector(args.detector, precision)
    for name in args.sets.split(","):
        path = os.path.join(args.summac_dir, f"{name}.json")
        if name != "spans" and not os.path.exists(path):
            print(f"{name}: no {path}, not scored", file=sys.stderr)
            continue
        if name != "xsumfaith":  # xsumfaith's summaries are the spans benchmark's: their cells are kept for it
            arms.forget()
        for arm in args.arms.split(","):
            if (name, arm) in done:
                continue
            start, cut = time.time(), arms.cut()
            figures = spans_val(arms, arm, args.spans_dir) if name == "spans" else summac_val(arms, arm,
                                                                                                           path)
            record = {"set": name, "arm": arm, "evidence": ARMS[arm][0], "max_length": ARMS[arm][1],
                      "precision": precision, "seconds": round(time.time() - start, 1),
                      "premises_cut": arms.cut() - cut, **figures}
            with open(args.out, "a") as f:
                f.write(json.dumps(record) + "\n")
            print(json.dumps({k: record[k] for k in ("set", "arm", "seconds")} | (
                {"word_roc_auc": record["word_roc_auc"], "overlap_mix": record["overlap_mix"]} if name == "spans"
                else {"model": record["model"], "unigram": record["unigram overlap"]})), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
