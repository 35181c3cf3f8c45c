"""A benchmark report's section of the model card (fitting.model_card pastes it as the report keeps it): each
benchmark's table and notes in markdown, written when the report is."""
from __future__ import annotations

from entailgen.training.benchmarks.rank19 import BENCHMARK, rank19_notes, rank19_table
from entailgen.training.benchmarks.spans import BENCHMARK as SPANS, format_spans
from entailgen.training.benchmarks.summac import benchmark_table
from entailgen.training.benchmarks.true import true_notes, true_table
from entailgen.training.fitting.model_card import files_line, mode_words


def card_section(report: dict) -> list[str]:
    """A human-labelled benchmark's section of the model card: the table beside the paper's rows, then its notes."""
    model = report.get("model", {})
    mode = ", ".join(mode_words(model))
    if report["benchmark"] == BENCHMARK:  # the DAE paper's summary reranking: one accuracy per scorer
        return [f"## The {BENCHMARK} benchmark (DAE Table 4: summary reranking)" + (f" ({mode})" if mode else ""),
                "", *files_line(model), report["protocol"] + ".", "", *rank19_table(report), "",
                *[line for n in rank19_notes(report) for line in (n + ".", "")]]
    if report["benchmark"] == "true":  # TRUE's files: ROC AUC per file
        return ["## The TRUE benchmark (ROC AUC; With a Little Push, Table 1)" + (f" ({mode})" if mode else ""), "",
                *files_line(model), report["protocol"] + ".", "", *true_table(report), "",
                *[n + "." for n in true_notes(report)], ""]
    if report["benchmark"] == SPANS:  # XSumFaith's span annotations: word level
        pilot = " (val documents alone: a pilot)" if report.get("cut") == "val" else ""
        return ["## The spans benchmark (XSumFaith span annotations, word level)" + pilot + (f" ({mode})" if mode
                                                                                          else ""),
                "", *files_line(model), report["protocol"], "", *format_spans(report).splitlines()[1:], ""]
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


def with_card_section(report: dict) -> dict:
    """The report with its card section (card_section) kept in it, as the model card reads it."""
    return {**report, "card_section": card_section(report)}
