"""The SummaC benchmark (Laban et al. 2022) as an evaluator: human-labelled (document, claim) rows, a threshold chosen
on each dataset's val cut, test balanced accuracy and ROC AUC beside the paper's Table 2 and two baselines.

Every row gets a score (an unscorable row 0.0, counted: training.unscorable.every_scored), each row is scored
once (a row given twice is left out, counted: distinct_rows), and a model's scores are cached row by row as they are
made (cached_results), so an interrupted or failed evaluation loses at most a chunk of rows."""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import random
import sys
import time
from collections import Counter
from typing import Callable, NamedTuple, Optional, Sequence

from entailgen.training.checkpoint import WEIGHTS
from entailgen.training.score_modes import ScoreMode
from entailgen.training.summac import CONV_CONFIG, CONV_WEIGHTS, model_checksums
from entailgen.training.unscorable import Unscorable, every_scored
from entailgen.transforms.views import content_words
from entailgen.transforms.claims.transformations import words_of
from entailgen.transforms.io.paths import user_cache
from entailgen.transforms.parser import load_spacy, spacy_model_id

CUTS = ("val", "test")
PAPER_DATASETS = ("CoGenSumm", "XSumFaith", "Polytope", "FactCC", "SummEval", "FRANK")
# Laban et al. 2022 (TACL), Table 2: test balanced accuracy (%) per dataset, and the paper's overall.
PAPER_TABLE_2 = {
    method: dict(zip(PAPER_DATASETS + ("Overall",), figures)) for method, figures in (
        ("NER-Overlap", (53.0, 63.3, 52.0, 55.0, 56.8, 60.9, 56.8)),
        ("MNLI-doc", (57.6, 57.5, 61.0, 61.3, 66.6, 63.6, 61.3)),
        ("FactCC-CLS", (63.1, 57.6, 61.0, 75.9, 60.1, 59.4, 62.8)),
        ("DAE", (63.4, 50.8, 62.8, 75.9, 70.3, 61.7, 64.2)),
        ("QuestEval", (62.6, 62.1, 70.3, 66.6, 72.5, 82.1, 69.4)),
        ("SummaC-ZS", (70.4, 58.4, 62.0, 83.8, 78.7, 79.0, 72.1)),
        ("SummaC-Conv", (64.7, 66.4, 62.7, 89.5, 81.7, 81.6, 74.4)))}
UNIGRAM, NER = "unigram overlap", "NER overlap"

Scorer = Callable[[list[tuple[str, str]]], list[float]]


class BenchmarkError(ValueError):
    """Bad benchmark input or a dataset the protocol cannot score: one line naming the file and row, or the dataset
    and cut."""


class BenchmarkRow(NamedTuple):
    """One human-labelled row: label 1 consistent / 0 inconsistent; cut val (thresholds) or test (figures)."""

    id: str
    document: str
    claim: str
    label: int
    cut: str
    dataset: str
    model_name: Optional[str] = None
    where: str = ""  # the file and row it was read from, to name it in an error
    given_id: bool = False  # the file gave its id (else `id` is made from its place, and names no row of its own)


def paper_name(dataset: str) -> Optional[str]:
    """The paper's spelling of a dataset named in a file (xsumfaith -> XSumFaith); None for a set not in Table 2."""
    return {**{d.lower(): d for d in PAPER_DATASETS}, "cogensum": "CoGenSumm"}.get(dataset.lower())  # SummaC's code


def _row(obj, path: str, where: str, row_id: str, stem: str) -> BenchmarkRow:
    """A checked BenchmarkRow from one JSON object; BenchmarkError naming the file and row otherwise."""
    def bad(problem: str) -> BenchmarkError:
        return BenchmarkError(f"{path} {where}: {problem}")

    if not isinstance(obj, dict):
        raise bad(f"expected an object with document, claim, label, cut; got {type(obj).__name__}")
    for field in ("document", "claim", "label", "cut"):
        if obj.get(field) is None:
            raise bad(f"missing field '{field}'")
    for field in ("document", "claim"):
        if not isinstance(obj[field], str) or not obj[field].strip():
            raise bad(f"'{field}' must be non-empty text")
    label = obj["label"]
    if isinstance(label, bool) or label not in (0, 1, "0", "1"):
        raise bad(f"label must be 1 (consistent) or 0 (inconsistent), got {label!r}")
    if obj["cut"] not in CUTS:
        raise bad(f"cut must be 'val' or 'test', got {obj['cut']!r}")
    dataset = obj.get("dataset") or stem
    model_name = obj.get("model_name")
    given = obj.get("id") is not None or where.startswith("id ")
    return BenchmarkRow(id=str(obj["id"]) if obj.get("id") is not None else row_id, document=obj["document"],
                        claim=obj["claim"], label=int(label), cut=obj["cut"], dataset=str(dataset),
                        model_name=None if model_name is None else str(model_name), where=f"{path} {where}",
                        given_id=given)


def _read_file(path: str) -> list[BenchmarkRow]:
    """Rows of one file: the SummaC repository's dict (id -> row), a JSON list of rows, or JSON Lines."""
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BenchmarkError(f"cannot read benchmark file {path}: {getattr(e, 'strerror', None) or e}")
    if not text.strip():
        raise BenchmarkError(f"{path}: empty file, no benchmark rows")
    lines = text.splitlines()
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as e:
        try:  # JSON Lines: the first non-blank line is a JSON value of its own
            json.loads(next(line for line in lines if line.strip()))
        except json.JSONDecodeError:
            raise BenchmarkError(f"{path}: bad JSON at line {e.lineno} column {e.colno}: {e.msg}")
        whole = None
    if isinstance(whole, dict) and whole and all(isinstance(v, dict) for v in whole.values()):
        return [_row(obj, path, f"id {key}", str(key), stem) for key, obj in whole.items()]
    if isinstance(whole, list):
        if not whole:
            raise BenchmarkError(f"{path}: empty list, no benchmark rows")
        return [_row(obj, path, f"row {i}", f"{stem}-{i}", stem) for i, obj in enumerate(whole, 1)]
    rows = []
    for n, line in enumerate(lines, 1):  # JSON Lines (one object alone in a file is one row)
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise BenchmarkError(f"{path} line {n}: bad JSON: {e.msg}")
        rows.append(_row(obj, path, f"line {n}", f"{stem}-{n}", stem))
    return rows


def read_benchmark(paths: Sequence[str]) -> list[BenchmarkRow]:
    """Every row of the given files, in order; the dataset defaults to the file's stem (data/xsumfaith.json)."""
    return [row for path in paths for row in _read_file(path)]


def row_identity(row: BenchmarkRow) -> tuple:
    """Which row a row is: the id its file gave it, else its text and system, in its dataset. Two systems' identical
    summaries, or rows under ids of their own, are separate annotations (SummaC's Polytope holds 8 such pairs, 2
    labelled apart) that the paper counts, so they stay separate here too."""
    if row.given_id:
        return row.dataset, "id", row.id
    return row.dataset, "text", row.document, row.claim, row.model_name


def _disagreement(first: BenchmarkRow, again: BenchmarkRow) -> str:
    """How two readings of one row differ, in words ('' when they do not)."""
    parts = [f"labelled {first.label} and {again.label}" if first.label != again.label else "",
             f"in the {first.cut} and {again.cut} cuts" if first.cut != again.cut else "",
             "with other document or claim text" if (first.document, first.claim) != (again.document, again.claim)
             else "",
             f"from systems {first.model_name} and {again.model_name}" if first.model_name != again.model_name else ""]
    return ", ".join(p for p in parts if p)


def distinct_rows(rows: Sequence[BenchmarkRow]) -> tuple[list[BenchmarkRow], dict[str, int]]:
    """(each row once, in order; rows left out per dataset): a row given twice (the same file given twice, a line
    repeated) scored twice would count twice in the test rows and the bootstrap, and an identical copy adds nothing.
    BenchmarkError naming both when two readings of one row disagree (label, cut, text or system): one row, one
    label, and which is right only its file can say."""
    first: dict[tuple, BenchmarkRow] = {}
    kept, left_out = [], Counter()
    for row in rows:
        key = row_identity(row)
        if key not in first:
            first[key] = row
            kept.append(row)
            continue
        differs = _disagreement(first[key], row)
        if differs:
            one = (f"id {row.id} twice" if row.given_id else
                   "the same document and claim, and no id or system to tell them apart")
            raise BenchmarkError(f"{first[key].where or first[key].id} and {row.where or row.id} (dataset "
                                 f"{row.dataset}): one row ({one}) {differs}; keep the right one")
        left_out[row.dataset] += 1
    return kept, dict(left_out)


def repeated_text(rows: Sequence[BenchmarkRow]) -> dict[str, int]:
    """Rows per dataset whose document and claim an earlier row has too (separate annotations, kept): shown, so a
    figure over them is read knowing it."""
    seen, repeats = set(), Counter()
    for r in rows:
        text = (r.dataset, r.document, r.claim)
        repeats[r.dataset] += text in seen
        seen.add(text)
    return {d: n for d, n in repeats.items() if n}


def _both_labels(labels: Sequence[int]) -> tuple[int, int]:
    """(consistent, inconsistent) counts; ValueError when a label is missing (the measure is undefined)."""
    pos = sum(1 for y in labels if y == 1)
    if pos == 0 or pos == len(labels):
        raise ValueError("balanced accuracy and ROC AUC need rows of both labels")
    return pos, len(labels) - pos


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float:
    """Mean of the recall on consistent (1) and on inconsistent (0) rows: the paper's measure, blind to the skew."""
    pos, neg = _both_labels(labels)
    tp = sum(1 for y, p in zip(labels, predictions) if y == 1 and p == 1)
    tn = sum(1 for y, p in zip(labels, predictions) if y == 0 and p == 0)
    return (tp / pos + tn / neg) / 2


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """P(a consistent row scores above an inconsistent one), a tie counting half (Mann-Whitney, average ranks)."""
    pos, neg = _both_labels(labels)
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    rank_sum, i = 0.0, 0
    while i < len(order):
        j = i
        while j < len(order) and scores[order[j]] == scores[order[i]]:
            j += 1
        average = (i + 1 + j) / 2  # ranks i+1 .. j share their mean
        rank_sum += average * sum(1 for k in order[i:j] if labels[k] == 1)
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def choose_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold t (a row is predicted consistent when score > t) with the highest balanced accuracy on these
    rows. Candidates: min - 1 (all consistent), the midpoints between distinct sorted scores, max + 1 (none); ties:
    the smallest such t (compared exactly, in integers)."""
    pos, neg = _both_labels(labels)
    per_score: dict[float, list[int]] = {}
    for y, s in zip(labels, scores):
        per_score.setdefault(s, [0, 0])[y] += 1
    distinct = sorted(per_score)
    tp, tn = pos, 0  # at min - 1 every row is predicted consistent
    best_key, best = tp * neg + tn * pos, distinct[0] - 1.0  # balanced accuracy * 2 * pos * neg
    for k, s in enumerate(distinct):  # past s, the rows scoring s are predicted inconsistent
        tn, tp = tn + per_score[s][0], tp - per_score[s][1]
        t = (s + distinct[k + 1]) / 2 if k + 1 < len(distinct) else s + 1.0
        if tp * neg + tn * pos > best_key:
            best_key, best = tp * neg + tn * pos, t
    return best


def gap_interval(cuts: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int]]], resamples: int = 1000,
                 seed: int = 0) -> tuple[float, float, float]:
    """(gap, low, high): overall balanced accuracy of predictions a minus b (mean over the datasets' (labels, a, b)
    test cuts), with its 95% paired bootstrap interval: each dataset's rows drawn again with replacement, the same
    draw for a and b (a draw with one label only is drawn again), so a gap the test rows cannot tell from 0 shows."""
    rng = random.Random(seed)

    def one(labels, a, b, k) -> float:
        drawn = [labels[i] for i in k]
        return balanced_accuracy(drawn, [a[i] for i in k]) - balanced_accuracy(drawn, [b[i] for i in k])

    def gap(picks) -> float:
        return sum(one(*cut, k) for cut, k in zip(cuts, picks)) / len(cuts)

    def draw(labels) -> list[int]:
        while True:
            k = [rng.randrange(len(labels)) for _ in labels]
            if 0 < sum(labels[i] for i in k) < len(k):
                return k

    gaps = [gap([draw(y) for y, _, _ in cuts]) for _ in range(resamples)]
    return (gap([range(len(y)) for y, _, _ in cuts]), *central_95(gaps))


def central_95(draws: Sequence[float]) -> tuple[float, float]:
    """The lowest and highest of the middle 95% of the draws: as many left out below as above (25 each of 1,000)."""
    ordered, cut = sorted(draws), round(0.025 * len(draws))
    return ordered[cut], ordered[len(ordered) - 1 - cut]


def unigram_overlap(document: str, claim: str) -> float:
    """Share of the claim's content word types (lower-cased, alphanumeric, spaCy's English stop words dropped:
    transforms.views.content_words) that occur as words of the document; 1.0 for a claim with none."""
    return unigram_overlap_scores([(document, claim)])[0]


@functools.lru_cache(maxsize=1)
def _nlp():
    return load_spacy()


def entities_found(document: str, entities: Sequence[str]) -> float:
    """1.0 when every entity's text occurs in the document (case-insensitive), else 0.0."""
    text = document.lower()
    return float(all(e.lower() in text for e in entities))


def ner_overlap(document: str, claim: str) -> float:
    """SummaC's NER-Overlap baseline: 1.0 when every named entity spaCy finds in the claim occurs in the document
    (case-insensitive text match), else 0.0; a claim without entities is 1.0."""
    return ner_overlap_scores([(document, claim)])[0]


def ner_overlap_scores(pairs: list[tuple[str, str]]) -> list[float]:
    """ner_overlap over many (document, claim) pairs, the claims parsed in one nlp.pipe (documents are not parsed)."""
    nlp = _nlp()
    docs = nlp.pipe((c for _, c in pairs), disable=[p for p in nlp.pipe_names if p not in ("tok2vec", "ner")])
    return [entities_found(d, [e.text for e in doc.ents]) for (d, _), doc in zip(pairs, docs)]


def unigram_overlap_scores(pairs: list[tuple[str, str]]) -> list[float]:
    """unigram_overlap over many (document, claim) pairs (a document's words found once: sets repeat documents)."""
    documents: dict[str, set] = {}
    scores = []
    for d, c in pairs:
        claimed = content_words(c)
        if d not in documents:
            documents[d] = words_of(d)
        scores.append(len(claimed & documents[d]) / len(claimed) if claimed else 1.0)
    return scores


BASELINES: dict[str, Scorer] = {UNIGRAM: unigram_overlap_scores, NER: ner_overlap_scores}


def _dataset_order(name: str) -> tuple:
    """The paper's column order, then other sets by name."""
    paper = paper_name(name)
    return (0, PAPER_DATASETS.index(paper), "") if paper else (1, 0, name)


def check_datasets(rows: Sequence[BenchmarkRow]) -> dict[str, dict[str, dict[str, int]]]:
    """Rows per dataset, cut and label; BenchmarkError naming the dataset and cut where one is missing or holds one
    label only (no threshold can be chosen, or no balanced accuracy measured)."""
    if not rows:
        raise BenchmarkError("no benchmark rows")
    counts: dict[str, dict[str, Counter]] = {}
    for r in rows:
        counts.setdefault(r.dataset, {c: Counter() for c in CUTS})[r.cut][r.label] += 1
    for name in sorted(counts, key=_dataset_order):
        for cut in CUTS:
            c = counts[name][cut]
            if not c:
                why = "thresholds are chosen on val" if cut == "val" else "figures are measured on test"
                raise BenchmarkError(f"dataset {name}: no {cut} cut ({why}; give the rows of both cuts)")
            if len(c) == 1:
                label = next(iter(c))
                raise BenchmarkError(f"dataset {name}, {cut} cut: all {c[label]} rows are labelled {label} "
                                     f"({'consistent' if label else 'inconsistent'}); balanced accuracy needs both")
    return {name: {cut: {"consistent": counts[name][cut][1], "inconsistent": counts[name][cut][0]} for cut in CUTS}
            for name in sorted(counts, key=_dataset_order)}


def _pct(x: float) -> float:
    return round(100 * x, 2)


def _checked_scores(name: str, results, n: int) -> tuple[list[float], list[bool]]:
    """(scores, unscorable) of a scorer's output: one finite number per row, an Unscorable one 0.0 by the one rule
    (training.unscorable.every_scored) and marked; ValueError naming the scorer otherwise."""
    results = list(results)
    unscorable = [isinstance(r, Unscorable) for r in results]
    scores = [float(s) for s in every_scored(results)]
    if len(scores) != n:
        raise ValueError(f"scorer {name} returned {len(scores)} scores for {n} rows")
    if not all(math.isfinite(s) for s in scores):
        raise ValueError(f"scorer {name} returned a score that is not a finite number")
    return scores, unscorable


UNSCORABLE_RULE = ("a row a scorer cannot score (training.unscorable.Unscorable) is scored 0.0, the lowest score: "
                   "inconsistent at any threshold that finds any row inconsistent, and counted")


def evaluate_benchmark(rows: Sequence[BenchmarkRow], scorers: dict[str, Scorer], name: str = "summac",
                       duplicates: Optional[dict[str, int]] = None) -> dict:
    """Each scorer on each dataset: threshold chosen on val, balanced accuracy and ROC AUC on test (percent), the
    overall mean over the datasets given, its gap to unigram overlap (when scored) with a bootstrap interval, and the
    paper's Table 2 rows over the same datasets. Every row is scored (UNSCORABLE_RULE; the rows each scorer could not
    score counted per dataset and cut) and given once (distinct_rows first; `duplicates`, the rows it left out, are
    reported)."""
    counts = check_datasets(rows)
    again, repeats = distinct_rows(rows)[1], repeated_text(rows)
    if again:
        raise ValueError(f"{sum(again.values())} rows given twice: evaluate distinct_rows(rows)[0], each row once")
    datasets = list(counts)
    report = {"benchmark": name, "datasets": datasets, "counts": counts,
              "protocol": "threshold (consistent when score > t) maximising balanced accuracy on each dataset's val "
                          "cut; balanced accuracy and ROC AUC (percent) on its test cut; overall = mean over datasets; "
                          + UNSCORABLE_RULE,
              "duplicates_left_out": {d: (duplicates or {}).get(d, 0) for d in datasets},
              "repeated_text": {d: repeats.get(d, 0) for d in datasets},
              "scorers": {}}
    pairs = [(r.document, r.claim) for r in rows]
    test_predictions = {}  # scorer -> per dataset (labels, predictions) on the test cut, for the gap to unigram overlap
    for scorer, fn in scorers.items():
        scores, unscorable = _checked_scores(scorer, fn(pairs), len(rows))
        per_dataset, test_predictions[scorer] = {}, []
        for ds in datasets:
            cut = {c: [(r.label, s) for r, s in zip(rows, scores) if r.dataset == ds and r.cut == c] for c in CUTS}
            val_y, val_s = [y for y, _ in cut["val"]], [s for _, s in cut["val"]]
            test_y, test_s = [y for y, _ in cut["test"]], [s for _, s in cut["test"]]
            t = choose_threshold(val_y, val_s)
            test_p = [int(s > t) for s in test_s]
            test_predictions[scorer].append((test_y, test_p))
            per_dataset[ds] = {
                "threshold": t, "val_balanced_accuracy": _pct(balanced_accuracy(val_y, [int(s > t) for s in val_s])),
                "balanced_accuracy": _pct(balanced_accuracy(test_y, test_p)),
                "roc_auc": _pct(roc_auc(test_y, test_s))}
        report["scorers"][scorer] = {"per_dataset": per_dataset, "overall": {
            m: round(sum(per_dataset[d][m] for d in datasets) / len(datasets), 2)
            for m in ("balanced_accuracy", "roc_auc")}, "overall_over": datasets, "unscorable": {
            ds: {c: sum(u for r, u in zip(rows, unscorable) if r.dataset == ds and r.cut == c) for c in CUTS}
            for ds in datasets}}
    resamples, seed = 1000, 0

    def gap_to_unigram(cuts) -> dict:
        gap, low, high = gap_interval(cuts, resamples, seed)
        return {"balanced_accuracy": _pct(gap), "interval_95": [_pct(low), _pct(high)]}

    for scorer in [s for s in scorers if s != UNIGRAM and UNIGRAM in scorers]:
        cuts = [(y, a, b) for (y, a), (_, b) in zip(test_predictions[scorer], test_predictions[UNIGRAM])]
        report["scorers"][scorer]["gap_to_unigram"] = {
            **gap_to_unigram(cuts), "how": f"paired bootstrap over the test rows, {resamples} draws, seed {seed}"}
        for ds, cut in zip(datasets, cuts):  # a per-set target is judged on one set's rows: its own interval
            report["scorers"][scorer]["per_dataset"][ds]["gap_to_unigram"] = gap_to_unigram([cut])
    in_paper = [paper_name(d) for d in datasets if paper_name(d)]
    report["paper_table_2"] = {
        "source": "Laban et al. 2022 (TACL), Table 2, test balanced accuracy (%)",
        "datasets": in_paper, "not_in_paper": [d for d in datasets if not paper_name(d)],
        "rows": {m: {**{d: fig[d] for d in in_paper},
                     "overall": round(sum(fig[d] for d in in_paper) / len(in_paper), 1) if in_paper else None,
                     "paper_overall": fig["Overall"]} for m, fig in PAPER_TABLE_2.items()}}
    return report


def benchmark_table(report: dict) -> tuple[list[str], list[str]]:
    """(markdown table, notes): each scorer's test balanced accuracy per dataset and overall, beside the paper's
    Table 2 rows over the same datasets; the notes say what overall means, each scorer's ROC AUC and the rows."""
    datasets = report["datasets"]
    paper = report["paper_table_2"]
    heads = [paper_name(d) or d for d in datasets]
    table = ["| method | " + " | ".join(heads) + " | overall |", "|---|" + "---|" * (len(heads) + 1)]
    for scorer, r in report["scorers"].items():
        table.append(f"| {scorer} | " + " | ".join(f"{r['per_dataset'][d]['balanced_accuracy']:.1f}" for d in datasets)
                     + f" | {r['overall']['balanced_accuracy']:.1f} |")
    for method in PAPER_TABLE_2:
        fig = paper["rows"][method]
        table.append(f"| {method} (paper) | " + " | ".join(
            f"{fig[paper_name(d)]:.1f}" if paper_name(d) else "-" for d in datasets)
            + f" | {'-' if fig['overall'] is None else format(fig['overall'], '.1f')} |")
    notes = [f"overall: mean over the datasets above; the paper rows' over {', '.join(paper['datasets']) or 'none'}"
             " (not the paper's Overall column, which is over its six)"
             + (f"; not in the paper: {', '.join(paper['not_in_paper'])}" if paper["not_in_paper"] else "")]
    notes += [f"{scorer}: ROC AUC " + ", ".join(f"{paper_name(d) or d} {r['per_dataset'][d]['roc_auc']:.1f}"
                                                for d in datasets) + f"; overall {r['overall']['roc_auc']:.1f}"
              for scorer, r in report["scorers"].items()]

    def gap_text(gap: dict) -> str:
        return f"{gap['balanced_accuracy']:+.1f} [{gap['interval_95'][0]:+.1f}, {gap['interval_95'][1]:+.1f}]"

    notes += [f"{scorer}: {gap['balanced_accuracy']:+.1f} points of overall balanced accuracy against {UNIGRAM}, "
              f"95% interval [{gap['interval_95'][0]:+.1f}, {gap['interval_95'][1]:+.1f}] (paired bootstrap over the "
              "test rows); per dataset " + ", ".join(
                  f"{paper_name(d) or d} {gap_text(r['per_dataset'][d]['gap_to_unigram'])}" for d in datasets)
              for scorer, r in report["scorers"].items() if (gap := r.get("gap_to_unigram"))]
    notes.append("rows (val / test, consistent + inconsistent): " + "; ".join(
        f"{paper_name(d) or d} " + " / ".join("{consistent}+{inconsistent}".format(**report["counts"][d][c])
                                             for c in CUTS) for d in datasets))
    return table, notes + input_notes(report)


def _per_dataset(counts: dict, datasets: Sequence[str]) -> str:
    """'XSumFaith 3, FRANK 1': the datasets with any, in the table's order."""
    return ", ".join(f"{paper_name(d) or d} {counts[d]}" for d in datasets if counts.get(d))


def input_notes(report: dict) -> list[str]:
    """The notes on what the figures cover: rows a scorer could not score (each scored 0.0), rows given twice (scored
    once) and rows sharing another's text (kept); none where there are none, or in a report written before they were
    counted."""
    datasets, notes = report["datasets"], []
    for scorer, r in report["scorers"].items():
        bad = r.get("unscorable", {})
        total = sum(n for d in bad.values() for n in d.values())
        if total:
            notes.append(f"{scorer}: {total} row{'s' if total > 1 else ''} it could not score, each scored 0.0 (the "
                         "lowest score: inconsistent at any threshold that finds a row inconsistent): " + ", ".join(
                             f"{paper_name(d) or d} {bad[d]['val']} val + {bad[d]['test']} test"
                             for d in datasets if sum(bad.get(d, {}).values())))
    if any((report.get("duplicates_left_out") or {}).values()):
        notes.append("rows given twice (the same id, or the same document, claim and system), scored once: "
                     + _per_dataset(report["duplicates_left_out"], datasets))
    if any((report.get("repeated_text") or {}).values()):
        notes.append("rows sharing an earlier row's document and claim under an id or system of their own (separate "
                     "annotations, each scored, as the paper counts them): "
                     + _per_dataset(report["repeated_text"], datasets))
    return notes


def format_table(report: dict) -> str:
    """The benchmark as printed: a title, the table beside the paper's rows, then the notes."""
    table, notes = benchmark_table(report)
    return "\n".join([f"SummaC benchmark ({report['benchmark']}): test balanced accuracy (%), threshold chosen on val",
                      *table, *notes])


def with_progress(scorer: Scorer, name: str = "", chunk: int = 32, every_s: float = 5.0, stream=None) -> Scorer:
    """The scorer run over chunks of rows, '[name: ]scored N / TOTAL rows' on stderr every every_s seconds once it
    takes that long (a document model on a benchmark takes minutes)."""
    def scored(pairs: list[tuple[str, str]]) -> list[float]:
        out: list[float] = []
        start = last = time.monotonic()
        for i in range(0, len(pairs), chunk):
            out += list(scorer(pairs[i:i + chunk]))
            if time.monotonic() - last >= every_s:
                last = time.monotonic()
                print(f"{name + ': ' if name else ''}scored {len(out)} / {len(pairs)} rows ({last - start:.0f} s)",
                      file=stream or sys.stderr, flush=True)
        return out

    return scored


# The score cache: a model's DocumentScorer.scored results, row by row, so a long evaluation survives an interruption or
# a late error and a rerun scores only the rows not yet scored. `evaluate --benchmark` keeps it in score_cache_dir(); a
# caller that keeps its own work dir passes its paths to cached_results.
SCORING_CODE = ("training/document_scorer.py", "training/scorers.py", "training/score_modes.py", "training/summac.py",
                "training/features.py",
                "training/evaluation.py", "training/checkpoint.py", "training/encoder.py", "training/models.py",
                "training/trainer.py", "training/precision.py",
                "transforms/claims/blocks.py", "transforms/parser.py", "transforms/arcs.py")
# what turns a model and a row into its score: the split, the parse, the features, the loaded model and its forward
CACHE_FORMAT = b"score cache 2: lines of {row key: {score, matrix, blocks, summary_sentences, sentence_scores} or " \
               b"{unscorable, message}}"
CACHED = ("score", "matrix", "blocks", "summary_sentences", "sentence_scores")  # what ZS, Conv and an ensemble read
SCORE_CHUNK = 32  # rows per scoring call: the cache grows, and progress is told, a chunk at a time


def score_cache_dir() -> str:
    """Where `evaluate --benchmark` caches scores: ~/.cache/entailgen/scores ($XDG_CACHE_HOME/entailgen/scores), one
    place outside any model dir (a model dir may be read-only or shared), safe to delete."""
    return user_cache("scores")


def _sha256_of(paths: Sequence[str]) -> str:
    """The sha256 of the files' contents, in order (a missing file adds nothing)."""
    digest = hashlib.sha256()
    for path in paths:
        if os.path.isfile(path):
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def scoring_code_sha256() -> str:
    """The sha256 of the code that scores a row (SCORING_CODE), of the spaCy pipeline it parses with (another one
    splits and parses rows otherwise) and of the cache's format."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the entailgen package
    code = _sha256_of([os.path.join(root, f) for f in SCORING_CODE])
    return hashlib.sha256(CACHE_FORMAT + f"{code} {spacy_model_id()}".encode()).hexdigest()


def cache_name(model_dir, granularity: str = "sentence", aggregation: str = "zs",
               conv_dir: Optional[str] = None, device: str = "cpu", mode: ScoreMode = ScoreMode(),
               precision: str = "fp32") -> str:
    """A model's score cache file: named by its checksums (its weights where it has none), the scoring code's sha256
    and the options that change a score (blocks, a Conv head's files, the score mode: e-c, MC dropout; the device and
    the resolved precision), so neither a model trained again into the same folder, nor other code, spaCy pipeline,
    blocks, head, mode or precision, reads the scores of before: int8 scores are never served for an fp32 request."""
    model_dir = os.path.normpath(os.fspath(model_dir))
    model = model_checksums(model_dir) or _sha256_of([os.path.join(model_dir, WEIGHTS)])
    options = "" if granularity == "sentence" else f"-{granularity}"
    if aggregation == "conv":
        head = _sha256_of([os.path.join(conv_dir, CONV_CONFIG), os.path.join(conv_dir, CONV_WEIGHTS)])
        options += f"-conv-{head[:8]}"
    options += "" if device == "cpu" else f"-{device}"  # cuda scores in bf16: not the cpu's fp32 scores
    options += mode.suffix()  # nothing for plain e
    options += "" if precision == "fp32" else f"-{precision}"  # int8 linear layers: not fp32's scores
    return f"{os.path.basename(model_dir)}-{model[:12]}-{scoring_code_sha256()[:8]}{options}.json"


def row_key(pair: tuple[str, str]) -> str:
    """A (document, claim) row's cache key."""
    return hashlib.sha256("\x1f".join(pair).encode()).hexdigest()


def cached(result) -> dict:
    """A DocumentScorer.scored result as the cache keeps it (JSON): what ZS, Conv and an ensemble read, or why it could
    not be scored."""
    if isinstance(result, Unscorable):
        return {"unscorable": result.error_type, "message": str(result)}
    return {k: result[k] for k in CACHED if k in result}


def restored(entry):
    """A cached entry as DocumentScorer.scored gave it: the result, or its Unscorable (None: a cache of before kept no
    reason)."""
    if entry is None:
        return Unscorable("Unscorable", "could not be scored (the cache keeps no reason)")
    if "unscorable" in entry:
        return Unscorable(entry["unscorable"], entry.get("message", ""))
    return entry


def read_cache(path: str) -> dict[str, dict]:
    """Row key -> cached entry of a score cache (lines of {key: entry}; a cache of one JSON object is one line); a
    line a killed run cut short is skipped, its rows scored again. A missing file holds none."""
    done: dict[str, dict] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    chunk = json.loads(line)
                except ValueError:
                    continue
                if isinstance(chunk, dict):
                    done.update(chunk)
    except FileNotFoundError:
        pass
    return done


def append_cache(path: str, entries: dict) -> None:
    """Entries appended to a score cache as one line, its folder made; a last line a killed run cut short is ended
    first, so it costs only its own rows."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "ab+") as f:
        if f.seek(0, os.SEEK_END):
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(entries) + "\n").encode())


def cached_results(makers: Sequence[Callable], pairs: Sequence[tuple[str, str]], paths: Sequence[str], name: str = "",
                   stream=None) -> list[list]:
    """Each model's DocumentScorer.scored results of the pairs (one list per model, in order): the rows its cache
    (paths, one per model) holds are read, the others scored a chunk at a time and appended to the cache as each
    chunk finishes, so an interrupted or failed run loses at most a chunk. makers build the models (DocumentScorer),
    only those with rows to score; models that split rows alike split each chunk once."""
    keys = [row_key(p) for p in pairs]
    rows = dict(zip(keys, pairs))
    for path in paths:  # a folder that cannot be made fails now, not after the first chunk is scored
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    done = [read_cache(path) for path in paths]
    todo = [k for k in rows if any(k not in cache for cache in done)]
    out = stream or sys.stderr
    if rows:  # where the scores are kept, and what is left to score
        print(f"{name + ': ' if name else ''}{len(rows) - len(todo)} of {len(rows)} distinct rows read from the score "
              f"cache, {len(todo)} to score ({', '.join(paths)})", file=out, flush=True)
    models: dict[int, object] = {}

    def score(chunk: list[str]) -> list[str]:
        splits: dict = {}
        for i, (make, cache, path) in enumerate(zip(makers, done, paths)):
            need = [k for k in chunk if k not in cache]
            if not need:
                continue
            model = models[i] if i in models else models.setdefault(i, make())
            if model.split_key() not in splits:
                split = model.split([rows[k][0] for k in chunk], [rows[k][1] for k in chunk])
                splits[model.split_key()] = dict(zip(chunk, split))
            results = model.scored([rows[k] for k in need], [splits[model.split_key()][k] for k in need])
            entries = {k: cached(r) for k, r in zip(need, results)}
            append_cache(path, entries)
            cache.update(entries)
        return chunk

    with_progress(score, name, chunk=SCORE_CHUNK, stream=out)(todo)
    return [[restored(cache[k]) for k in keys] for cache in done]
