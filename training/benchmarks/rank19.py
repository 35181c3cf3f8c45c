"""Summary reranking (DAE paper, Table 4; Falke et al. 2019's CNN/DM triples): a source sentence, a correct and an
incorrect summary sentence; a scorer is right on a triple when it scores the correct sentence higher (a tie: half).

The triples' incorrect sentences reuse the source's words and break its structure, so word overlap mostly ties, and the
paper's rule-based score (the share of the sentence's dependency arcs found among the source's) is the baseline to
beat: 74.8 against the DAE model's 83.6.
"""
from __future__ import annotations

import json
import random
from typing import NamedTuple, Sequence

from entailgen.training.benchmarks.baselines import Scorer, dependency_overlap_scores, unigram_overlap_scores
from entailgen.training.benchmarks.files import BenchmarkError, check_text, distinct_rows, read_text
from entailgen.training.benchmarks.judged import JudgedModel, Run
from entailgen.training.benchmarks.metrics import accuracy_interval
from entailgen.training.fitting.model_card import files_line, titled
from entailgen.training.scoring.unscorable import Unscorable, every_scored
from entailgen.transforms.parser import Parser, ParserConfig

BENCHMARK = "rank19"
UNIGRAM, DEPENDENCY = "unigram overlap", "dependency arcs (rule)"
PAPER_TABLE_4 = {"BERT-MNLI (paper)": 72.3, "RoBERTa-MNLI (paper)": 78.3, "ELECTRA-MNLI (paper)": 82.0,
                 "QAGS (paper)": 72.1, "rule-based dependency (paper)": 74.8, "DAE (paper)": 83.6,
                 "human (paper)": 83.9}
FIELDS = ("article_sent", "correct_sent", "incorrect_sent")  # tagoyal/dae-factuality resources/summary_pairs.json


class Triple(NamedTuple):
    """A source sentence with a correct and an incorrect summary sentence of it."""

    id: str
    source: str
    correct: str
    incorrect: str
    where: str = ""  # the file and row it was read from, to name it in an error


def read_triples(path: str) -> list[Triple]:
    """The triples of summary_pairs.json (a JSON list) or JSON Lines of the same fields; BenchmarkError (one line)
    naming the file and row otherwise."""
    text = read_text(path, "rank19 file")
    try:
        rows = json.loads(text) if text.lstrip().startswith("[") else [json.loads(line) for line in text.splitlines()
                                                                        if line.strip()]
    except ValueError as e:
        raise BenchmarkError(f"{path}: not JSON or JSON Lines ({e})")
    triples = []
    for i, row in enumerate(rows):
        missing = [k for k in FIELDS if not isinstance(row, dict) or not isinstance(row.get(k), str)
                   or not row[k].strip()]
        if missing:
            raise BenchmarkError(f"{path} row {i + 1}: no text in {', '.join(missing)} (a triple has "
                                 f"{', '.join(FIELDS)})")
        check_text(f"{path} row {i + 1}", {k: row[k] for k in FIELDS})
        triples.append(Triple(str(row.get("id", i)), *(row[k] for k in FIELDS), f"{path} row {i + 1}"))
    if not triples:
        raise BenchmarkError(f"{path}: no triples")
    return triples


def distinct_triples(triples: Sequence[Triple]) -> tuple[list[Triple], int]:
    """(each triple once, in order; copies left out): a triple given twice (a line repeated, whatever its id) is one
    comparison, counted once; BenchmarkError naming both where one source's two sentences are ranked both ways."""
    def refusal(first: Triple, again: Triple) -> str:
        return "" if first.correct == again.correct else (
            f"{first.where} and {again.where}: the same source and sentences, the correct one and the incorrect one "
            "swapped; keep the right one")

    kept, left_out = distinct_rows(triples, lambda t: (t.source, frozenset((t.correct, t.incorrect))), refusal)
    return kept, sum(left_out.values())


def outcomes(correct: Sequence[float], incorrect: Sequence[float], ties: str = "half", seed: int = 0) -> list[float]:
    """Per triple: 1 when the correct sentence scores higher, 0 when lower; a tie 0.5 ('half') or, as the paper's
    rule-based score, 1 or 0 drawn at random with a fixed seed ('random')."""
    rng = random.Random(seed)
    out = []
    for c, i in zip(correct, incorrect):
        if c == i:
            out.append(0.5 if ties == "half" else float(rng.random() < 0.5))
        else:
            out.append(float(c > i))
    return out


def evaluate_rank19(triples: Sequence[Triple], scorers: dict[str, Scorer], ties: dict[str, str] = {},
                    duplicates: int = 0) -> dict:
    """Each scorer's reranking accuracy (ties: 'half' unless `ties` names 'random' for it) with its bootstrap interval,
    tie count and the sentences it could not score (each 0.0, the lowest score), beside the paper's Table 4 rows;
    `duplicates`: the triples distinct_triples left out (scored once)."""
    pairs = [(t.source, t.correct) for t in triples] + [(t.source, t.incorrect) for t in triples]
    report = {"benchmark": BENCHMARK, "triples": len(triples), "duplicates_left_out": duplicates, "scorers": {},
              "paper": PAPER_TABLE_4,
              "protocol": "right when the correct sentence scores higher; a tie counts half (the rule-based score "
                          "breaks ties at random, seed 0); a sentence a scorer cannot score is 0.0, the lowest score, "
                          "and counted; 95% bootstrap interval over the triples"}
    for name, fn in scorers.items():
        results = list(fn(pairs))
        scores = [float(s) for s in every_scored(results)]
        correct, incorrect = scores[:len(triples)], scores[len(triples):]
        accuracy, low, high = accuracy_interval(outcomes(correct, incorrect, ties.get(name, "half")))
        report["scorers"][name] = {"accuracy": accuracy, "interval": [low, high],
                                   "ties": sum(c == i for c, i in zip(correct, incorrect)),
                                   "unscorable": sum(isinstance(s, Unscorable) for s in results)}
    return report


def rank19_table(report: dict) -> list[str]:
    """The report as a markdown table: each scorer (with the sentences it could not score, as TRUE's notes count
    them), then the paper's rows."""
    rows = ["| scorer | accuracy | 95% interval | ties | could not score (0.0) |", "|---|---|---|---|---|"]
    rows += [f"| {name} | {r['accuracy']} | [{r['interval'][0]}, {r['interval'][1]}] | {r['ties']} | "
             f"{r.get('unscorable', '-')} |" for name, r in report["scorers"].items()]
    rows += [f"| {name} | {value} | | | |" for name, value in report["paper"].items()]
    return rows


def rank19_notes(report: dict) -> list[str]:
    """What the figures cover: triples given twice, scored once (none in a report written before they were
    counted)."""
    n = report.get("duplicates_left_out") or 0
    return [f"triples given twice (the same source and sentences), scored once: {n}"] if n else []


def format_rank19(report: dict) -> str:
    """The report as printed."""
    return "\n".join([f"Summary reranking (DAE Table 4, {report['triples']} triples): how often the correct sentence "
                      "scores higher", *rank19_table(report), *rank19_notes(report), report["protocol"]])


def card_section(report: dict) -> list[str]:
    """The report's section of the model card: the table beside the paper's rows, then its notes."""
    model = report.get("model", {})
    return [titled(f"## The {BENCHMARK} benchmark (DAE Table 4: summary reranking)", model), "", *files_line(model),
            report["protocol"] + ".", "", *rank19_table(report), "",
            *[line for n in rank19_notes(report) for line in (n + ".", "")]]


def baselines(parser: ParserConfig = ParserConfig()) -> dict[str, Scorer]:
    """entailgen's baselines on the same triples: unigram overlap and the paper's rule-based dependency score."""
    return {UNIGRAM: unigram_overlap_scores,
            DEPENDENCY: lambda pairs: dependency_overlap_scores(pairs, Parser(parser))}


def run(model: JudgedModel, files: Sequence[str]) -> Run:
    """`evaluate MODEL_DIR --benchmark rank19 FILE`: the model scoring each sentence against its source, a DAE arc
    model by the mean of its arcs' probabilities (F(h, x), §3), a pair model (or a detector's members, joined) by
    P(entailed), beside the baselines on the same triples; a sentence it cannot score is 0.0 and counted."""
    if len(files) != 1:
        raise BenchmarkError("--benchmark rank19 takes one file (summary_pairs.json, or JSON Lines of its fields)")
    triples, duplicates = distinct_triples(read_triples(files[0]))  # a copy: once; swapped sentences: one line
    score = model.scorer().pair_scores  # a detector's: its members' pair scores joined
    report = evaluate_rank19(triples, {model.row: score, **baselines()}, ties={DEPENDENCY: "random"},
                             duplicates=duplicates)
    report["model"] = {"dir": model.dir, "files": list(files), "score_mode": model.mode.config(),
                       "precision": model.precision}
    return Run(report, format_rank19(report), card_section(report), (model.precision_part(),))
