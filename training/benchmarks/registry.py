"""The benchmarks `evaluate --benchmark NAME` runs: each benchmark's module owns its run (its rows, the model's
scores, the baselines on the same rows, the report); what they share is here: the options each takes, the files a
fetched folder holds, and the report saved in MODEL_DIR/eval with its card section."""
from __future__ import annotations

import json
import os
import sys
from typing import Callable, NamedTuple, Sequence

from entailgen.training.benchmarks import rank19, spans, summac, true
from entailgen.training.benchmarks.fetch import RECORD, fetch_records
from entailgen.training.benchmarks.files import BenchmarkError
from entailgen.training.benchmarks.judged import JudgedModel, Run
from entailgen.training.fitting.model_card import kept_report_name, save_evaluation


class Evaluation(NamedTuple):
    """A benchmark's run, and the options of JudgedModel it reads beyond the model and how it scores."""

    run: Callable[[JudgedModel, Sequence[str]], Run]
    takes: tuple[str, ...] = ()


RUNS = {summac.BENCHMARK: Evaluation(summac.run, ("granularity", "aggregation", "conv", "ensemble", "evidence")),
        rank19.BENCHMARK: Evaluation(rank19.run),
        true.BENCHMARK: Evaluation(true.run, ("granularity", "evidence")),
        spans.BENCHMARK: Evaluation(spans.run, ("granularity", "articles", "val_only", "evidence"))}


def folder_files(name: str, directory: str) -> list[str]:
    """The files a folder that `benchmarks fetch NAME --to DIR` wrote holds, as its record lists them, in the order
    DIR/* gives them (so DIR gives the report DIR/* gives); BenchmarkError (one line) for a folder without a record,
    or a record of another benchmark's fetch."""
    path = os.path.join(directory, RECORD)
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except FileNotFoundError:
        raise BenchmarkError(f"{directory}: a folder is read by the {RECORD} `entailgen benchmarks fetch {name} --to "
                             f"{directory}` writes, and it has none; give the benchmark's files")
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BenchmarkError(f"{path}: unreadable ({e})")
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        raise BenchmarkError(f"{path}: not the record of a benchmarks fetch (benchmark, files, sources)")
    if record.get("benchmark") != name:
        raise BenchmarkError(f"{directory} holds a fetch of {record.get('benchmark')}, not of {name}")
    return [os.path.join(directory, file) for file in sorted(record["files"])]


def benchmark_files(name: str, paths: Sequence[str]) -> list[str]:
    """The files a run reads: a folder `benchmarks fetch NAME --to DIR` wrote, given alone, stands for its files
    (folder_files); a fetch's own record among the files (DIR/*.json matches it) is said and left out."""
    if len(paths) == 1 and os.path.isdir(paths[0]):
        return folder_files(name, paths[0])
    records = fetch_records(paths)
    for path in records:
        print(f"leaving out {path}: the record of a benchmarks fetch, not a benchmark set", file=sys.stderr)
    return [path for path in paths if path not in records]


def run_benchmark(name: str, model: JudgedModel, paths: Sequence[str]) -> Run:
    """The benchmark NAME run on the model, its files read from the paths given (benchmark_files)."""
    return RUNS[name].run(model, benchmark_files(name, paths))


def save_report(model: JudgedModel, ran: Run) -> str:
    """The report saved in MODEL_DIR/eval under a name of its files and how they were scored, with the run's section
    of the model card kept in it (the card imports no benchmark), and the card rewritten: another file's report is
    kept. Returns its path."""
    report = ran.report
    return save_evaluation(model.dir, kept_report_name(model.dir, report["benchmark"], report["model"]["files"],
                                                       *ran.how, model.mode.suffix()), {**report, "card_section": ran.card})
