"""The SummaC benchmark (Laban et al. 2022) as an evaluator: human-labelled (document, claim) rows, a threshold chosen
on each dataset's val cut, test balanced accuracy and ROC AUC beside the paper's Table 2 and two baselines."""
from __future__ import annotations

import functools
import json
import math
import os
import random
import sys
import time
from collections import Counter
from typing import Callable, NamedTuple, Optional, Sequence

from entailgen.training.views import content_words
from entailgen.transforms.claims.transformations import words_of
from entailgen.transforms.parser import load_spacy

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
    return BenchmarkRow(id=str(obj.get("id", row_id)), document=obj["document"], claim=obj["claim"],
                        label=int(label), cut=obj["cut"], dataset=str(dataset),
                        model_name=None if model_name is None else str(model_name))


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
    training.views.content_words) that occur as words of the document; 1.0 for a claim with none."""
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


def _checked_scores(name: str, scores, n: int) -> list[float]:
    """The scorer's output as floats: one finite number per row, or ValueError naming the scorer."""
    scores = [float(s) for s in scores]
    if len(scores) != n:
        raise ValueError(f"scorer {name} returned {len(scores)} scores for {n} rows")
    if not all(math.isfinite(s) for s in scores):
        raise ValueError(f"scorer {name} returned a score that is not a finite number")
    return scores


def evaluate_benchmark(rows: Sequence[BenchmarkRow], scorers: dict[str, Scorer], name: str = "summac") -> dict:
    """Each scorer on each dataset: threshold chosen on val, balanced accuracy and ROC AUC on test (percent), the
    overall mean over the datasets given, its gap to unigram overlap (when scored) with a bootstrap interval, and the
    paper's Table 2 rows over the same datasets."""
    counts = check_datasets(rows)
    datasets = list(counts)
    report = {"benchmark": name, "datasets": datasets, "counts": counts,
              "protocol": "threshold (consistent when score > t) maximising balanced accuracy on each dataset's val "
                          "cut; balanced accuracy and ROC AUC (percent) on its test cut; overall = mean over datasets",
              "scorers": {}}
    pairs = [(r.document, r.claim) for r in rows]
    test_predictions = {}  # scorer -> per dataset (labels, predictions) on the test cut, for the gap to unigram overlap
    for scorer, fn in scorers.items():
        scores = _checked_scores(scorer, fn(pairs), len(rows))
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
            for m in ("balanced_accuracy", "roc_auc")}, "overall_over": datasets}
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
    return table, notes


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
