"""TRUE (Honovich et al. 2022) as an evaluator: its CSV files (grounding, generated_text, label 1 = consistent), ROC AUC
per file with a seeded 95% bootstrap interval, beside unigram overlap on the same rows and With a Little Push's Table 1
(Steen et al. 2023), whose base NLI model reaches 79.8 on Q2 and 89.4 with its three methods.

A grounding of one sentence is scored with the response as one pair; a longer one as a document (SummaC blocks x the
response's sentences, as `score --documents` does), so a long grounding is not cut to the model's max length.
"""
from __future__ import annotations

import os
from typing import Callable, NamedTuple, Optional, Sequence

from entailgen.training.benchmarks.baselines import unigram_overlap_scores
from entailgen.training.benchmarks.files import BenchmarkError, csv_rows, distinct_rows
from entailgen.training.benchmarks.judged import JudgedModel, Run, not_default
from entailgen.training.benchmarks.metrics import auc_interval
from entailgen.training.fitting.model_card import files_line, titled
from entailgen.training.scoring.unscorable import Unscorable, every_scored
from entailgen.transforms.claims.blocks import paragraphs, sentences_of

BENCHMARK = "true"
UNIGRAM = "unigram overlap"
COLUMNS = ("grounding", "generated_text", "label")  # TRUE's CSV layout (google-research/true), label 1 = consistent
SETS = {"q2": "Q2", "begin": "BEGIN", "dialfact": "DialFact"}  # a file's set, told by its name
# Steen et al. 2023, Table 1: ROC AUC on TRUE's dialogue sets.
PAPER_TABLE_1 = {method: dict(zip(SETS.values(), figures)) for method, figures in (
    ("Q2 metric", (80.9, 79.7, 86.1)), ("SummaC-ZS", (77.4, 82.0, 84.1)), ("T5-11B ANLI", (72.7, 82.6, 77.7)),
    ("base NLI (DeBERTa)", (79.8, 80.4, 81.8)), ("all three methods", (89.4, 79.3, 92.5)))}

Scorer = Callable[[list["TrueRow"]], list]  # rows -> a score (or Unscorable) each


class TrueRow(NamedTuple):
    """One labelled response: the grounding it should be faithful to, the response, label 1 consistent / 0 not."""

    grounding: str
    response: str
    label: int
    where: str  # the file and row, to name it in an error
    others: tuple = ()  # the row's other columns (a system, a turn, an id): what tells two annotations apart


def read_true(path: str) -> list[TrueRow]:
    """The rows of one TRUE CSV; BenchmarkError (one line) for a file that cannot be read, a missing column, a row
    without text or with a label other than 0 / 1, and a file without rows of both labels (no ROC AUC)."""
    rows = [_row(path, raw["_line"], raw) for raw in csv_rows(path, COLUMNS, "TRUE file",
                                                                f"TRUE's layout: {', '.join(COLUMNS)}")]
    if len({r.label for r in rows}) < 2:
        raise BenchmarkError(f"{path}: {len(rows)} rows, not rows of both labels (ROC AUC needs consistent and "
                             "inconsistent responses)")
    return rows


def _row(path: str, line: int, raw: dict) -> TrueRow:
    """A checked row of a TRUE CSV (line: its line in the file, the header being line 1)."""
    empty = [c for c in COLUMNS[:2] if not (raw.get(c) or "").strip()]
    if empty:
        raise BenchmarkError(f"{path} line {line}: no text in {', '.join(empty)}")
    label = (raw.get("label") or "").strip()
    if label not in ("0", "1", "0.0", "1.0"):
        raise BenchmarkError(f"{path} line {line}: label must be 1 (consistent) or 0 (inconsistent), got {label!r}")
    others = tuple(sorted((k, str(v)) for k, v in raw.items() if k not in COLUMNS and k is not None and k != "_line"))
    return TrueRow(raw["grounding"], raw["generated_text"], int(float(label)), f"{path} line {line}", others)


def distinct_true(rows: Sequence[TrueRow]) -> tuple[list[TrueRow], int]:
    """(each row of a file once, in order; copies left out): a row given twice (every column alike) counts once;
    BenchmarkError naming both where the same grounding and response (and other columns: a system, a turn, an id,
    which tell separate annotations apart) are labelled both ways."""
    def refusal(first: TrueRow, again: TrueRow) -> str:
        return "" if first.label == again.label else (
            f"{first.where} and {again.where}: the same grounding and response labelled {first.label} and "
            f"{again.label}; keep the right one")

    kept, left_out = distinct_rows(rows, lambda r: (r.grounding, r.response, r.others), refusal)
    return kept, sum(left_out.values())


def column_names(paths: Sequence[str]) -> list[str]:
    """Each file's name in the table: its base name, or as many of its last folders as tell it from another file of
    the same name (dev/q2.csv, test/q2.csv)."""
    parts = [os.path.normpath(p).split(os.sep) for p in paths]
    names = []
    for mine in parts:
        n = 1
        while n < len(mine) and any(other != mine and other[-n:] == mine[-n:] for other in parts):
            n += 1
        names.append("/".join(mine[-n:]))
    return names


def set_of(path: str):
    """The paper's name of a file's set (q2.csv, begin_dev.csv -> Q2, BEGIN), or None."""
    stem = os.path.basename(path).lower()
    return next((name for key, name in SETS.items() if key in stem), None)


def sentence_counts(texts: Sequence[str], parser) -> list[int]:
    """How many sentences the parser finds in each text (each distinct paragraph parsed once)."""
    paras = [paragraphs(t) for t in texts]
    distinct = list(dict.fromkeys(p for ps in paras for p in ps))
    tokens = dict(zip(distinct, parser.tokens(distinct, sentences_only=True)))  # sentences only: as split() parses
    return [sum(len(sentences_of(tokens[p], p, 0)) for p in ps) for ps in paras]


def model_scores(rows: Sequence[TrueRow], scorer) -> tuple[list, list[bool]]:
    """(a score or Unscorable per row, whether it was scored as a document): a DocumentScorer's cell score of
    (grounding, response) where the grounding is one sentence, its row score (blocks x response sentences) where
    it is longer."""
    from entailgen.training.scoring.document_scorer import score_of  # torch: the report and the card read this module

    long = [n > 1 for n in sentence_counts([r.grounding for r in rows], scorer.parser)]
    pairs = scorer.pair_scores([(r.grounding, r.response) for r, d in zip(rows, long) if not d])
    documents = iter(score_of(x) for x in scorer.scored([(r.grounding, r.response) for r, d in zip(rows, long) if d]))
    pairs = iter(pairs)
    return [next(documents) if d else next(pairs) for d in long], long


def evaluate_true(files: dict[str, list[TrueRow]], scorers: dict[str, Scorer], resamples: int = 1000,
                  duplicates: Optional[dict[str, int]] = None) -> dict:
    """Each scorer's ROC AUC per file with its bootstrap interval (seed 0) and the rows it could not score (each
    scored 0.0, the lowest score), beside the paper's Table 1 column of the file's set; `duplicates`: the rows per
    file distinct_true left out (scored once)."""
    report = {"benchmark": BENCHMARK, "files": {}, "paper": PAPER_TABLE_1,
              "protocol": f"ROC AUC (percent; a tie counts half) per file with its 95% bootstrap interval ({resamples} "
                          "draws of the rows, seed 0); a row a scorer cannot score is 0.0, the lowest score, and "
                          "counted; a grounding of one sentence is scored with the response as one pair, a longer "
                          "one as a document (blocks x response sentences, SummaC-ZS)"}
    for name, rows in files.items():
        labels = [r.label for r in rows]
        entry = {"set": set_of(name), "rows": len(rows), "consistent": sum(labels),
                 "inconsistent": len(rows) - sum(labels), "duplicates_left_out": (duplicates or {}).get(name, 0),
                 "scorers": {}}
        for scorer, fn in scorers.items():
            results = list(fn(rows))
            scores = [float(s) for s in every_scored(results)]
            auc, low, high = auc_interval(labels, scores, resamples)
            entry["scorers"][scorer] = {"roc_auc": auc, "interval": [low, high],
                                        "unscorable": sum(isinstance(s, Unscorable) for s in results)}
        report["files"][name] = entry
    return report


def true_table(report: dict) -> list[str]:
    """The report as a markdown table: a column per file, each scorer's ROC AUC [interval], then the paper's rows in
    the columns of the sets they name."""
    files = report["files"]
    heads = [f"{f['set'] or '-'} ({short}, {f['rows']} rows)" for short, f in zip(column_names(list(files)),
                                                                                  files.values())]
    rows = ["| scorer | " + " | ".join(heads) + " |", "|---|" + "---|" * len(files)]
    for scorer in next(iter(files.values()))["scorers"]:
        rows.append(f"| {scorer} | " + " | ".join(
            "{roc_auc} [{interval[0]}, {interval[1]}]".format(**f["scorers"][scorer]) for f in files.values()) + " |")
    rows += [f"| {method} (paper) | " + " | ".join(str(figures.get(f["set"], "-")) for f in files.values()) + " |"
             for method, figures in report["paper"].items()]
    return rows


def true_notes(report: dict) -> list[str]:
    """What the figures cover: rows per file, rows scored as documents, rows a scorer could not score."""
    notes = []
    for short, f in zip(column_names(list(report["files"])), report["files"].values()):
        bad = ", ".join(f"{s} {r['unscorable']}" for s, r in f["scorers"].items() if r["unscorable"])
        notes.append(f"{short}: {f['consistent']} consistent + {f['inconsistent']} inconsistent rows"
                     + (f", {f['documents']} with a grounding longer than a sentence (scored as documents)"
                        if f.get("documents") else "") + (f"; could not score (0.0): {bad}" if bad else "")
                     + (f"; {n} row{'s' if n > 1 else ''} given twice, scored once"
                        if (n := f.get("duplicates_left_out")) else ""))
    return notes


def card_section(report: dict) -> list[str]:
    """The report's section of the model card: the table (a column per file), then its notes."""
    model = report.get("model", {})
    return [titled("## The TRUE benchmark (ROC AUC; With a Little Push, Table 1)", model), "",
            *files_line(model), report["protocol"] + ".", "", *true_table(report), "",
            *[n + "." for n in true_notes(report)], ""]


def format_true(report: dict) -> str:
    """The report as printed."""
    return "\n".join(["TRUE (ROC AUC, %): each file's rows, the paper's rows (With a Little Push, Table 1) beside",
                      *true_table(report), *true_notes(report), report["protocol"]])


def run(model: JudgedModel, files: Sequence[str]) -> Run:
    """`evaluate MODEL_DIR --benchmark true FILE...`: every file checked before the model loads, then ROC AUC per
    file, the model (a grounding longer than a sentence scored as a document, --granularity its blocks) beside
    unigram overlap on the same rows and the paper's Table 1."""
    if not files:
        raise BenchmarkError("--benchmark true needs TRUE's CSV files (grounding, generated_text, label)")
    again = next((f for i, f in enumerate(files) if os.path.realpath(f) in map(os.path.realpath, files[:i])), None)
    if again:
        raise BenchmarkError(f"--benchmark true: {again} is given twice (each file is one column of the table)")
    rows, duplicates = {}, {}
    for path in files:  # every file checked before the model loads; a copy: once; labelled both ways: one line
        rows[path], duplicates[path] = distinct_true(read_true(path))
    granularity = model.granularity or "sentence"
    scorer, documents = model.scorer(granularity), []  # per file, the rows scored as documents

    def scored(rows: list) -> list:
        results, long = model_scores(rows, scorer)
        documents.append(sum(long))
        return results

    report = evaluate_true(rows, {model.row: scored, UNIGRAM: lambda rs: unigram_overlap_scores(
        [(r.grounding, r.response) for r in rs])}, duplicates=duplicates)
    for entry, n in zip(report["files"].values(), documents):
        entry["documents"] = n
    report["model"] = {"dir": model.dir, "files": list(files), "granularity": granularity,
                       "score_mode": model.mode.config(), "precision": model.precision,
                       **model.evidence_entry()}
    return Run(report, format_true(report), card_section(report),
               (not_default(model.granularity, "sentence"), model.precision_part(), model.evidence_part()))
