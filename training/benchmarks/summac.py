"""The SummaC benchmark (Laban et al. 2022) as an evaluator: human-labelled (document, claim) rows, a threshold chosen
on each dataset's val cut, test balanced accuracy and ROC AUC beside the paper's Table 2 and two baselines.

Every row gets a score (an unscorable row 0.0, counted: training.scoring.unscorable.every_scored), each row is scored
once (a row given twice is left out, counted: distinct_rows), and a model's scores are cached row by row as they are
made (cached_results), so an interrupted or failed evaluation loses at most a chunk of rows."""
from __future__ import annotations

import json
import math
import os
import sys
from collections import Counter
from typing import NamedTuple, Optional, Sequence

from entailgen.training.benchmarks.baselines import NER, UNIGRAM, Scorer, ner_overlap_scores, unigram_overlap_scores
from entailgen.training.benchmarks.files import BenchmarkError, check_text, read_text
from entailgen.training.benchmarks.files import distinct_rows as distinct
from entailgen.training.benchmarks.judged import MODEL_ROW, JudgedModel, Run, dirs_part, not_default
from entailgen.training.benchmarks.metrics import balanced_accuracy, choose_threshold, gap_interval, roc_auc
from entailgen.training.fitting.model_card import files_line, mode_words
from entailgen.training.scoring.unscorable import Unscorable, every_scored

BENCHMARK = "summac"
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
BASELINES: dict[str, Scorer] = {UNIGRAM: unigram_overlap_scores, NER: ner_overlap_scores}


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
    check_text(f"{path} {where}", {"document": obj["document"], "claim": obj["claim"]})
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
    text = read_text(path, "benchmark file")
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
    """(each row once, in order; rows left out per dataset): files.distinct_rows by row_identity, naming both readings
    of one row that disagree (label, cut, text or system)."""
    def refusal(first: BenchmarkRow, row: BenchmarkRow) -> str:
        differs = _disagreement(first, row)
        one = (f"id {row.id} twice" if row.given_id else
               "the same document and claim, and no id or system to tell them apart")
        return differs and (f"{first.where or first.id} and {row.where or row.id} (dataset {row.dataset}): one row "
                            f"({one}) {differs}; keep the right one")

    return distinct(rows, row_identity, refusal, lambda row: row.dataset)


def repeated_text(rows: Sequence[BenchmarkRow]) -> dict[str, int]:
    """Rows per dataset whose document and claim an earlier row has too (separate annotations, kept): shown, so a
    figure over them is read knowing it."""
    seen, repeats = set(), Counter()
    for r in rows:
        text = (r.dataset, r.document, r.claim)
        repeats[r.dataset] += text in seen
        seen.add(text)
    return {d: n for d, n in repeats.items() if n}


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
    (training.scoring.unscorable.every_scored) and marked; ValueError naming the scorer otherwise."""
    results = list(results)
    unscorable = [isinstance(r, Unscorable) for r in results]
    scores = [float(s) for s in every_scored(results)]
    if len(scores) != n:
        raise ValueError(f"scorer {name} returned {len(scores)} scores for {n} rows")
    if not all(math.isfinite(s) for s in scores):
        raise ValueError(f"scorer {name} returned a score that is not a finite number")
    return scores, unscorable


UNSCORABLE_RULE = ("a row a scorer cannot score (training.scoring.unscorable.Unscorable) is scored 0.0, the lowest "
                   "score: inconsistent at any threshold that finds any row inconsistent, and counted")


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


def card_section(report: dict) -> list[str]:
    """The report's section of the model card: how it was scored, the table beside the paper's rows, its notes."""
    model = report.get("model", {})
    table, notes = benchmark_table(report)
    options = ", ".join([f"{k} {model[k]}" for k in ("granularity", "aggregation", "conv_dir", "precision")
                         if model.get(k)]
                        + ([f"ensemble of {', '.join(model['ensemble'])}"] if model.get("ensemble") else [])
                        + mode_words(model))
    lines = [f"## The {report['benchmark']} benchmark" + (f" ({options})" if options else ""), "", *files_line(model),
             "Test balanced accuracy (%), the threshold chosen on each dataset's val cut.", "", *table, ""]
    for note in notes:
        lines += [note + ".", ""]
    return lines


def format_table(report: dict) -> str:
    """The benchmark as printed: a title, the table beside the paper's rows, then the notes."""
    table, notes = benchmark_table(report)
    return "\n".join([f"SummaC benchmark ({report['benchmark']}): test balanced accuracy (%), threshold chosen on val",
                      *table, *notes])


def run(model: JudgedModel, files: Sequence[str]) -> Run:
    """`evaluate MODEL_DIR --benchmark summac FILE...`: the rows and cuts checked before the model loads; each model's
    scores cached as each chunk of rows is scored (score_cache_dir()), so a rerun after an interruption scores only
    the rows not yet scored; a detector's row, then each member alone, or the model's and the ensemble's; the
    baselines on the same rows."""
    from entailgen.training.scoring.cache import cache_name, cached_results, score_cache_paths, with_progress
    from entailgen.training.scoring.detector import heads_in_words
    from entailgen.training.scoring.document_scorer import DocumentOptions, DocumentScorer, joined, score_of

    if not files:
        raise BenchmarkError("--benchmark summac needs the benchmark's files (data/<set>.json or JSON Lines)")
    detector, mode = model.detector, model.mode
    ensemble = [m.path for m in detector.members][1:] if detector else list(model.ensemble)
    rows, duplicates = distinct_rows(read_benchmark(files))  # a row given twice: once; two that disagree: one line
    check_datasets(rows)  # cuts and labels of every dataset: one line now, not after scoring
    given = {k: v for k, v in {"granularity": model.granularity, "aggregation": "conv" if model.conv is not None
                               else model.aggregation, "conv_dir": model.conv}.items() if v is not None}
    given.update(score=mode.score, mc_dropout=mode.mc_dropout, **model.evidence_options)
    options = DocumentOptions(**given, ensemble=tuple(ensemble))
    # its models opened once (a missing or damaged one: one line before anything loads), Conv with them, e-c on a
    # 2-way model: one line; a detector's members as it opened them
    opened = options.check(*((detector.members[0], detector.members[1:]) if detector else (model.dir,)))
    model_dirs = [detector.members[0].path if detector else model.dir, *ensemble]
    opened_by = dict(zip(model_dirs, opened))
    device, precision = model.device_type, model.precision  # each cached apart: cuda's bf16, int8, onnx-*
    # how each model scores a row: the options, or for a detector's member with a Conv head, the head
    heads = detector.heads(mode.plain) if detector else {}
    if detector:
        print(f"{detector}: its members score each row: {heads_in_words(heads)}", file=sys.stderr, flush=True)
    how = {m: {**given, "aggregation": "conv", "conv_dir": heads[m]} if heads.get(m) else given for m in model_dirs}
    caches = score_cache_paths([cache_name(opened_by[m], options.granularity, how[m].get("aggregation", "zs"),
                                           how[m].get("conv_dir"), device, mode, precision, model.evidence_part())
                                for m in model_dirs])  # None: no home, no cache
    # each row's results, one list per model: scored once (or read from the caches), read by the model's row and
    # the ensemble's; a model loads only when it has rows to score
    results = cached_results([lambda m=m: DocumentScorer(opened_by[m], **how[m], device=device, precision=precision)
                              for m in model_dirs],
                             [(r.document, r.claim) for r in rows], caches,
                             MODEL_ROW + (f" and {len(ensemble)} more" if ensemble else ""))
    alone = lambda i: lambda pairs: [score_of(r) for r in results[i]]  # noqa: E731 (one model's scores)
    together = lambda pairs: [score_of(joined(by_model)) for by_model in zip(*results)]  # noqa: E731
    if detector:  # the detector's own row, then each member alone
        scorers = {model.row: together,
                   **{f"member {os.path.basename(m)}": alone(i) for i, m in enumerate(model_dirs)}}
    else:
        scorers = {model.row: alone(0),
                   **({f"entailgen ensemble ({len(model_dirs)} models)": together} if ensemble else {})}
    scorers.update({b: with_progress(fn, b, chunk=512) for b, fn in BASELINES.items()})
    report = evaluate_benchmark(rows, scorers, duplicates=duplicates)
    report["model"] = {"dir": model.dir, "device": device, "precision": precision,
                       "granularity": options.granularity, "aggregation": options.aggregation,
                       "conv_dir": options.conv_dir, "score_mode": mode.config(), "files": list(files),
                       **model.evidence_entry(),
                       **({"ensemble": model_dirs} if ensemble else {}), "score_caches": caches,
                       **({"members": heads_in_words(heads)} if detector else {})}
    return Run(report, format_table(report), card_section(report), (
        not_default(options.granularity, "sentence"), dirs_part("conv", [options.conv_dir] if options.conv_dir else []),
        dirs_part("with", [] if detector else ensemble), model.precision_part(), model.evidence_part()))
