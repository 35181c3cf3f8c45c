"""Word-level detection of unsupported content against human span annotations: XSumFaith's hallucination spans
(Maynez et al. 2020; google-research-datasets/xsum_hallucination_annotations,
hallucination_annotations_xsum_summaries.csv: 500 BBC articles x 5 systems x 3 annotators, one row per marked span).

A summary word (its text between spaces, as `score --explain` splits it) is unsupported when at least 2 of its
annotators (3; one summary of the file has 2) marked a span overlapping it. The CSV writes an apostrophe as \\' and
some spans with a literal \\n: both are read as meant. A span is found by its text, the occurrence nearest the
offset given (1-based in most rows, not all), so a wrong offset does not move it; a span whose text is not in its
summary falls back to its offsets (counted); one whose offsets cover no word either (past the summary's end) is
placed nowhere: its summary's labels would lack that annotator's mark, so the summary is left out (both counted).
An unsupported word is intrinsic-marked (extrinsic-marked) when more of the annotators who marked it gave the span
that covers it the CSV's `hallucination_type` intrinsic than extrinsic (or the reverse); a tie, or no type given,
marks it neither. Each kind is scored apart on its own words: every supported word of the cut as the negatives, the
unsupported words of that kind as the positives (the other unsupported words left out), from the same word scores.

The cut is by document, never by summary: a document is in val when the first byte of the sha256 of its bbcid is
even, else test; all five systems' summaries of a document fall in one cut. Thresholds and the mixes' weights are
chosen on val; ROC AUC and balanced accuracy are reported on test with a 95% bootstrap interval over test documents.
Nothing here trains a model: keep these articles out of training text (`entailgen detector --exclude-documents`).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from entailgen.training.benchmarks.baselines import unigram_overlap_scores
from entailgen.training.benchmarks.files import BenchmarkError, csv_rows, read_text
from entailgen.training.benchmarks.judged import JudgedModel, Run, not_default
from entailgen.training.benchmarks.metrics import choose_threshold, grouped_interval, roc_auc
from entailgen.training.fitting.model_card import files_line, titled
from entailgen.training.scoring.explain import words_of  # the words as `score --explain` gives them

BENCHMARK = "spans"
ARTICLES = "xsum_articles.jsonl"  # the articles `benchmarks fetch spans` writes beside the annotations
COLUMNS = ("bbcid", "system", "summary", "hallucination_type", "hallucinated_span", "hallucinated_span_start",
           "hallucinated_span_end", "worker_id")
MAJORITY = 2  # annotators marking a word for it to be unsupported
VAL, TEST = "val", "test"
INTRINSIC, EXTRINSIC = "intrinsic", "extrinsic"  # Maynez et al.'s kinds of unsupported content, the CSV's types
ABSENT, SUMMARY_OVERLAP, OVERLAP_MIX = ("word absent from the document", "summary's unigram overlap",
                                        "overlap mix (weights fit on val)")
SUMMARY_SCORE = "summary's own score"  # the model's row score given to each of its words
WITH_OVERLAP = "with the overlap features (weights fit on val)"  # the model's words beside what overlap knows

Scorer = Callable[[list["SpanSummary"]], list]  # summaries -> per summary, one unsupported score per word


@dataclass(frozen=True)
class SpanSummary:
    """One system summary of one article: its words (start, end, text), each word's label (1: at least MAJORITY of
    its annotators marked it), its article, once read, and each word's kind (INTRINSIC, EXTRINSIC or "": supported,
    or its markers' types tied or not given)."""

    bbcid: str
    system: str
    summary: str
    words: tuple[tuple[int, int, str], ...]
    labels: tuple[int, ...]
    annotators: int
    document: str = ""
    types: tuple[str, ...] = ()

    @property
    def cut(self) -> str:
        return cut_of(self.bbcid)


@dataclass(frozen=True)
class Placement:
    """How the annotations' spans were placed: by their offsets (their text not in the summary), nowhere (nor do
    their offsets cover a word), with the CSV lines of those and the summaries left out for them."""

    by_offsets: int = 0
    nowhere_lines: tuple[int, ...] = ()
    left_out: int = 0  # summaries with a span placed nowhere


def cut_of(bbcid: str) -> str:
    """A document's cut: val when the first byte of sha256(bbcid) is even, else test."""
    return VAL if hashlib.sha256(bbcid.encode("utf-8")).digest()[0] % 2 == 0 else TEST


def as_meant(text: str) -> str:
    """The CSV's text as written by the systems: \\' an apostrophe, a literal \\n at a span's edge nothing."""
    return text.replace("\\'", "'").replace("\\n", " ").strip()


def locate_span(summary: str, span: str, start: int, end: int) -> tuple[tuple[int, int], bool]:
    """((start, end), found by its text): the occurrence of the span's text nearest the given 1-based start, any run
    of whitespace matching any other; else the given offsets, clipped to the summary."""
    chunks = span.split()
    if chunks:
        pattern = re.compile(r"\s+".join(map(re.escape, chunks)), re.IGNORECASE)
        found = [m.span() for m in pattern.finditer(summary)]
        if found:
            return min(found, key=lambda s: abs(s[0] - (start - 1))), True
    low = min(max(start - 1, 0), len(summary))
    return (low, min(max(end, low), len(summary))), False


def word_type(votes: Sequence[set[str]]) -> str:
    """A marked word's kind from the types each of its markers gave the spans covering it: the kind more of them
    gave than the other, "" on a tie or when none gave one (Maynez et al.'s two kinds are told apart by people, and a
    word people split on is neither)."""
    intrinsic, extrinsic = (sum(kind in v for v in votes) for kind in (INTRINSIC, EXTRINSIC))
    return INTRINSIC if intrinsic > extrinsic else EXTRINSIC if extrinsic > intrinsic else ""


def read_spans(path: str) -> tuple[list[SpanSummary], Placement]:
    """(each (bbcid, system)'s summary with its word labels, in the file's order, less those with a span placed
    nowhere; how the spans were placed). BenchmarkError (one line) for a file that cannot be read, a missing column,
    no row, a summary written two ways, a bad offset, or a summary with fewer than MAJORITY annotators."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for raw in csv_rows(path, COLUMNS, "span annotations", "the XSumFaith hallucination annotations' layout: "
                                                           + ", ".join(COLUMNS)):
        key = ((raw["bbcid"] or "").strip(), (raw["system"] or "").strip())
        if not all(key) or not (raw["summary"] or "").strip() or not (raw["worker_id"] or "").strip():
            raise BenchmarkError(f"{path} line {raw['_line']}: no bbcid, system, summary or worker_id")
        groups.setdefault(key, []).append(raw)
    if not groups:
        raise BenchmarkError(f"{path}: no annotation row under its header")
    out, by_offsets, nowhere, left_out = [], 0, [], 0
    for (bbcid, system), rows in groups.items():
        summary = as_meant(rows[0]["summary"])
        other = next((r for r in rows if as_meant(r["summary"]) != summary), None)
        if other is not None:
            raise BenchmarkError(f"{path} line {other['_line']}: summary of {bbcid} {system} differs from line "
                                 f"{rows[0]['_line']}'s")
        words = tuple(words_of(summary))
        marked: dict[str, set[int]] = {}
        typed: dict[str, dict[int, set[str]]] = {}  # annotator -> word -> the types of its spans covering the word
        placed_nowhere = False
        for r in rows:
            marks = marked.setdefault(r["worker_id"].strip(), set())
            kinds = typed.setdefault(r["worker_id"].strip(), {})
            span = r["hallucinated_span"]
            if span is None or span.strip() in ("", "NULL"):
                continue
            try:
                start, end = int(r["hallucinated_span_start"]), int(r["hallucinated_span_end"])
            except (TypeError, ValueError):
                raise BenchmarkError(f"{path} line {r['_line']}: span offsets must be whole numbers, got "
                                     f"{r['hallucinated_span_start']!r}, {r['hallucinated_span_end']!r}")
            (s, e), found = locate_span(summary, as_meant(span), start, end)
            covered = {i for i, (ws, we, _) in enumerate(words) if ws < e and s < we}
            if not covered:  # its text absent and its offsets past the summary: a mark no word can carry
                nowhere.append(r["_line"])
                placed_nowhere = True
            by_offsets += not found and bool(covered)
            marks.update(covered)
            for i in covered:
                kinds.setdefault(i, set()).add((r["hallucination_type"] or "").strip().lower())
        if len(marked) < MAJORITY:
            raise BenchmarkError(f"{path}: {bbcid} {system} has {len(marked)} annotator(s); the majority rule needs "
                                 f"{MAJORITY} or more")
        if placed_nowhere:
            left_out += 1
            continue
        labels = tuple(int(sum(i in m for m in marked.values()) >= MAJORITY) for i in range(len(words)))
        types = tuple(word_type([k[i] for k in typed.values() if i in k]) if y else "" for i, y in enumerate(labels))
        out.append(SpanSummary(bbcid, system, summary, words, labels, len(marked), types=types))
    return out, Placement(by_offsets, tuple(nowhere), left_out)


def read_articles(path: str) -> dict[str, str]:
    """bbcid -> article of a JSON Lines file of {"bbcid", "document"}; BenchmarkError (one line) for a file that
    cannot be read, a bad line, or one bbcid given two different articles."""
    articles: dict[str, str] = {}
    for n, line in enumerate(read_text(path, "articles").split("\n"), 1):  # not splitlines: U+2028 ends no line
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            raise BenchmarkError(f"{path} line {n}: not JSON ({e})")
        if not isinstance(row, dict) or not isinstance(row.get("document"), str) or not row["document"].strip() \
                or not isinstance(row.get("bbcid"), (str, int)):
            raise BenchmarkError(f"{path} line {n}: an article is {{\"bbcid\", \"document\"}} with text")
        bbcid = str(row["bbcid"])
        if articles.get(bbcid, row["document"]) != row["document"]:
            raise BenchmarkError(f"{path} line {n}: bbcid {bbcid} given another article before")
        articles[bbcid] = row["document"]
    if not articles:
        raise BenchmarkError(f"{path}: no article")
    return articles


def with_articles(summaries: Sequence[SpanSummary], articles: dict[str, str]) -> tuple[list[SpanSummary], int]:
    """The summaries whose article is given, each with it; and how many were left out (no article)."""
    kept = [replace(s, document=articles[s.bbcid]) for s in summaries if s.bbcid in articles]
    return kept, len(summaries) - len(kept)


def absent(word: str, document_words: set[str]) -> float:
    """1.0 when a piece of the word (its \\w runs, lower-cased) is not a word of the document; 0.0 for punctuation."""
    pieces = re.findall(r"\w+", word.lower())
    return float(any(p not in document_words for p in pieces))


def overlap_features(summaries: Sequence[SpanSummary]) -> list[list[tuple[float, float, float, float]]]:
    """Per summary, per word: (the word absent, the share of its two neighbours absent, the summary's share of
    absent words, 1 - the summary's unigram overlap): what the overlap heuristics know."""
    overlaps = unigram_overlap_scores([(s.document, s.summary) for s in summaries])
    documents: dict[str, set[str]] = {}
    out = []
    for s, overlap in zip(summaries, overlaps):
        words = documents.setdefault(s.document, set(re.findall(r"\w+", s.document.lower())))
        own = [absent(text, words) for _, _, text in s.words]
        share = sum(own) / len(own) if own else 0.0
        rows = []
        for i, a in enumerate(own):
            near = own[max(0, i - 1):i] + own[i + 1:i + 2]
            rows.append((a, sum(near) / len(near) if near else 0.0, share, 1.0 - overlap))
        out.append(rows)
    return out


def mixed_on_val(summaries: Sequence[SpanSummary], features: Sequence[Sequence[Sequence[float]]]
                 ) -> list[list[float]]:
    """Per summary, per word: a logistic mix of the words' features (scikit-learn), its weights fit on the val words
    alone."""
    from sklearn.linear_model import LogisticRegression

    val = [(f, y) for s, fs in zip(summaries, features) if s.cut == VAL for f, y in zip(fs, s.labels)]
    mix = LogisticRegression().fit([f for f, _ in val], [y for _, y in val])
    return [list(mix.predict_proba(fs)[:, 1]) if len(fs) else [] for fs in features]


def overlap_scorers(summaries: Sequence[SpanSummary]) -> dict[str, list[list[float]]]:
    """The model-free baselines' word scores: the word's absence, the summary's unigram overlap given to each word,
    and a logistic mix of the four overlap features with weights fit on the val words."""
    features = overlap_features(summaries)
    return {ABSENT: [[f[0] for f in fs] for fs in features],
            SUMMARY_OVERLAP: [[f[3] for f in fs] for fs in features],
            OVERLAP_MIX: mixed_on_val(summaries, features)}


def with_overlap(summaries: Sequence[SpanSummary], *model: Sequence[Sequence[float]]) -> list[list[float]]:
    """The model's word scores (its words, its summary's own score) mixed with the four overlap features, weights fit
    on val: whether the model knows what overlap does not (its gap over OVERLAP_MIX), not a scorer `score` gives."""
    features = overlap_features(summaries)
    return mixed_on_val(summaries, [[(*f, *(m[i][j] for m in model)) for j, f in enumerate(fs)]
                                    for i, fs in enumerate(features)])


def check_cuts(summaries: Sequence[SpanSummary], cuts: Sequence[str] = (VAL, TEST)) -> dict[str, list[int]]:
    """Each cut's summaries (indices); BenchmarkError (one line) where a cut has no words of both labels: the mix's
    weights are fit on val and ROC AUC needs both labels, so say it before any scoring."""
    picked_by_cut = {c: [i for i, s in enumerate(summaries) if s.cut == c] for c in cuts}
    for c, picked in picked_by_cut.items():
        labels = [y for i in picked for y in summaries[i].labels]
        if not labels or not 0 < sum(labels) < len(labels):
            documents = len({summaries[i].bbcid for i in picked})
            raise BenchmarkError(f"the {c} cut has {documents} documents, {len(labels)} words ({sum(labels)} "
                                 "unsupported), not words of both labels: the mix is fit on val and ROC AUC needs both "
                                 "(a document is val when the first byte of sha256(bbcid) is even, else test)")
    return picked_by_cut


def of_kind(s: SpanSummary, kind: str) -> list[int]:
    """The summary's words scored for one kind: every supported word and the unsupported words marked that kind."""
    return [i for i, y in enumerate(s.labels) if not y or (s.types[i] if s.types else "") == kind]


def evaluate_spans(summaries: Sequence[SpanSummary], scores: dict[str, list[list[float]]], resamples: int = 1000,
                   compare: Sequence[tuple[str, Sequence[str]]] = (), left_out: int = 0,
                   placement: Placement = Placement(), on: str = TEST) -> dict:
    """Each scorer's word-level ROC AUC and balanced accuracy on the `on` cut's documents (threshold chosen on val),
    with 95% bootstrap intervals over those documents (seed 0); each compare (model, baselines): the model's AUC gap
    over the strongest of the baselines, paired on the same draws. Then the same on the words of each kind
    (of_kind): every scorer's ROC AUC and each compared model's paired gap over the overlap mix. on=VAL: a pilot that
    spends no test word (its thresholds and mix weights fit on the words they are scored on)."""
    cuts = check_cuts(summaries, (VAL, TEST) if on == TEST else (VAL,))
    by_document: dict[str, dict[str, list[int]]] = {VAL: {}, TEST: {}}
    for i, s in enumerate(summaries):
        by_document[s.cut].setdefault(s.bbcid, []).append(i)

    def grouped(values: Sequence, cut: str) -> list[list]:
        return [[v for i in members for v in values[i]] for members in by_document[cut].values()]

    labels = [list(s.labels) for s in summaries]
    report = {"benchmark": BENCHMARK, "protocol": __doc__.split("\n\n")[2].replace("\n", " "), "cut": on,
              "documents": {c: len(d) for c, d in by_document.items()},
              "summaries": {c: len(p) for c, p in cuts.items()}, "left_out_no_article": left_out,
              "spans_placed_by_offsets": placement.by_offsets,
              "spans_placed_nowhere": {"spans": len(placement.nowhere_lines), "lines": list(placement.nowhere_lines),
                                       "summaries_left_out": placement.left_out},
              "words": {c: sum(len(summaries[i].words) for i in p) for c, p in cuts.items()},
              "unsupported_words": {c: sum(sum(summaries[i].labels) for i in p) for c, p in cuts.items()},
              "scorers": {}}
    on_labels = grouped(labels, on)
    for name, values in scores.items():
        val_y, val_s = sum(grouped(labels, VAL), []), sum(grouped(values, VAL), [])
        threshold = choose_threshold(val_y, val_s)
        on_values = grouped(values, on)
        report["scorers"][name] = {
            "val_roc_auc": round(100 * roc_auc(val_y, val_s), 1), "threshold": round(threshold, 6),
            "roc_auc": list(grouped_interval(on_labels, on_values, roc_auc, resamples=resamples)),
            # the balanced accuracy of 0/1 predictions is their ROC AUC, a tie counting half: the AUC's fast draws
            "balanced_accuracy": list(grouped_interval(
                on_labels, [[float(v > threshold) for v in g] for g in on_values], roc_auc, resamples=resamples))}
    report["gaps"] = []
    for model, baselines in compare:
        best = max(baselines, key=lambda b: report["scorers"][b]["roc_auc"][0])
        report["gaps"].append({"model": model, "baseline": best, "roc_auc": list(grouped_interval(
            on_labels, grouped(scores[model], on), roc_auc, base=grouped(scores[best], on), resamples=resamples))})
    report["kinds"] = {kind: kind_figures(summaries, scores, kind, grouped, on, [m for m, _ in compare], resamples)
                       for kind in (INTRINSIC, EXTRINSIC)}
    return report


def kind_figures(summaries: Sequence[SpanSummary], scores: dict[str, list[list[float]]], kind: str, grouped,
                 on: str, models: Sequence[str], resamples: int) -> dict:
    """One kind's words (of_kind) on the `on` cut: their counts, every scorer's ROC AUC [95%] and val ROC AUC, and
    each model's paired gap over the overlap mix; figures None (with why) where a cut lacks words of both labels."""
    picks = [of_kind(s, kind) for s in summaries]
    labels = [[s.labels[i] for i in p] for s, p in zip(summaries, picks)]
    out = {"words": {}, "unsupported_words": {}}
    for c in dict.fromkeys((VAL, on)):
        flat = sum(grouped(labels, c), [])
        out["words"][c], out["unsupported_words"][c] = len(flat), sum(flat)
    if any(not 0 < out["unsupported_words"][c] < out["words"][c] for c in out["words"]):
        return {**out, "scorers": None, "gaps": [], "why": f"no {kind}-marked word or no supported word in a cut"}
    on_labels, val_y = grouped(labels, on), sum(grouped(labels, VAL), [])
    picked = {name: [[v[i] for i in p] for v, p in zip(values, picks)] for name, values in scores.items()}
    out["scorers"] = {name: {"val_roc_auc": round(100 * roc_auc(val_y, sum(grouped(values, VAL), [])), 1),
                             "roc_auc": list(grouped_interval(on_labels, grouped(values, on), roc_auc,
                                                              resamples=resamples))}
                      for name, values in picked.items()}
    out["gaps"] = [{"model": m, "baseline": OVERLAP_MIX, "roc_auc": list(grouped_interval(
        on_labels, grouped(picked[m], on), roc_auc, base=grouped(picked[OVERLAP_MIX], on), resamples=resamples))}
        for m in models if OVERLAP_MIX in picked and m != OVERLAP_MIX]
    return out


def val_roc_auc(summaries: Sequence[SpanSummary], scores: Sequence[Sequence[float]]) -> float:
    """Word-level ROC AUC (percent) on the val documents: how word rules and mixes are chosen, test unseen."""
    picked = [i for i, s in enumerate(summaries) if s.cut == VAL]
    return round(100 * roc_auc([y for i in picked for y in summaries[i].labels],
                               [v for i in picked for v in scores[i]]), 1)


def format_spans(report: dict) -> str:
    """The report as printed: a markdown table of the scorers, what the figures cover, the gap; then each kind's
    words (intrinsic- and extrinsic-marked) beside the overlap mix."""
    on = report.get("cut", TEST)
    lines = [f"XSumFaith spans (word level, {on} documents; threshold and mix weights chosen on val"
             + ("; a pilot: val alone, no test word scored" if on == VAL else "") + "):",
             "| scorer | ROC AUC [95%] | balanced accuracy [95%] | val ROC AUC |", "|---|---|---|---|"]
    for name, r in report["scorers"].items():
        auc, acc = r["roc_auc"], r["balanced_accuracy"]
        lines.append(f"| {name} | {auc[0]} [{auc[1]}, {auc[2]}] | {acc[0]} [{acc[1]}, {acc[2]}] | {r['val_roc_auc']} |")
    w, u, d = report["words"], report["unsupported_words"], report["documents"]
    nowhere = report.get("spans_placed_nowhere") or {"spans": 0}
    lines.append("; ".join(f"{c}: {d[c]} documents, {report['summaries'][c]} summaries, {w[c]} words ({u[c]} "
                           "unsupported)" for c in report["summaries"])
                 + f"; {report['left_out_no_article']} summaries left out (no article); "
                 f"{report['spans_placed_by_offsets']} spans placed by their offsets (text not found)"
                 + (f"; {nowhere['spans']} spans placed nowhere (text not found, offsets past the summary; lines "
                    f"{', '.join(map(str, nowhere['lines'][:5]))}{', ...' if nowhere['spans'] > 5 else ''}): "
                    f"{nowhere['summaries_left_out']} summaries left out" if nowhere["spans"] else ""))
    for g in report.get("gaps", ()):
        lines.append(f"{g['model']} minus {g['baseline']}: {g['roc_auc'][0]} ROC AUC points "
                     f"[{g['roc_auc'][1]}, {g['roc_auc'][2]}]")
    lines += format_kinds(report.get("kinds", {}), on)
    if "rules" in report:
        lines.append("word rules (training.scoring.explain.WordRule arcs/pool/untouched), val ROC AUC: " + ", ".join(f"{k} {v}" for k, v in report["rules"].items()))
    return "\n".join(lines)


def card_section(report: dict) -> list[str]:
    """The report's section of the model card: the printed table and notes under a heading (a val pilot said)."""
    model = report.get("model", {})
    pilot = " (val documents alone: a pilot)" if report.get("cut") == "val" else ""
    return [titled("## The spans benchmark (XSumFaith span annotations, word level)" + pilot, model), "",
            *files_line(model), report["protocol"], "", *format_spans(report).splitlines()[1:], ""]


def format_kinds(kinds: dict, on: str) -> list[str]:
    """The kinds' lines: a table of every scorer's ROC AUC on each kind's words, their counts, each model's gap."""
    if not kinds:
        return []
    names = next((list(k["scorers"]) for k in kinds.values() if k["scorers"]), [])
    lines = [f"words of intrinsic- / extrinsic-marked spans apart ({on} documents; the negatives: every supported "
             "word):",
             "| scorer | " + " | ".join(f"{kind} ROC AUC [95%] | val" for kind in kinds) + " |",
             "|---|" + "---|---|" * len(kinds)]
    for name in names:
        cells = []
        for k in kinds.values():
            r = (k["scorers"] or {}).get(name)
            cells += [f"{r['roc_auc'][0]} [{r['roc_auc'][1]}, {r['roc_auc'][2]}]", str(r["val_roc_auc"])] if r else \
                ["-", "-"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for kind, k in kinds.items():
        lines.append(f"{kind}: {k['words'][on]} words ({k['unsupported_words'][on]} unsupported) on {on}"
                     + (f"; not scored: {k['why']}" if k["scorers"] is None else ""))
        for g in k["gaps"]:
            lines.append(f"{kind}: {g['model']} minus {g['baseline']}: {g['roc_auc'][0]} ROC AUC points "
                         f"[{g['roc_auc'][1]}, {g['roc_auc'][2]}]")
    return lines


RULES = {"child/max/sentence (default)": ("child", "max", "sentence"), "touching/max/sentence": ("touching", "max",
         "sentence"), "child/mean/sentence": ("child", "mean", "sentence"), "child/max/zero": ("child", "max", "zero")}


def model_word_scores(scorer, summaries: Sequence[SpanSummary], chunk: int = 16, progress=None
                      ) -> tuple[dict[str, list[list[float]]], list[list[float]], int]:
    """(per word rule, per summary, each word's unsupported; the summary's own score given to each word as
    1 - score; how many summaries the model could not score) from a RowScorer's explanations (DocumentScorer,
    Detector): the rows scored once for every rule. An unscorable summary's words are all 1.0 (its score 0.0, the
    benchmarks' rule)."""
    from entailgen.training.scoring.explain import WordRule, unsupported_of
    from entailgen.training.scoring.unscorable import Unscorable

    rules = [WordRule(*r) for r in RULES.values()]
    by_rule: list[list[list[float]]] = [[] for _ in rules]
    own: list[list[float]] = []
    unscorable = 0
    for start in range(0, len(summaries), chunk):
        part = summaries[start:start + chunk]
        results = scorer.explained_by_rules([(s.document, s.summary) for s in part], rules)
        for i, s in enumerate(part):
            if isinstance(results[0][i], Unscorable):
                unscorable += 1
                own.append([1.0] * len(s.words))
                for words in by_rule:
                    words.append([1.0] * len(s.words))
                continue
            own.append([unsupported_of(results[0][i][0]["score"])] * len(s.words))
            for words, explained in zip(by_rule, results):
                explanation = explained[i][1]
                if [(w.start, w.end) for w in explanation.words] != [(a, b) for a, b, _ in s.words]:
                    raise BenchmarkError(f"{s.bbcid} {s.system}: the explained words are not the annotated ones")
                words.append([w.unsupported for w in explanation.words])
        if progress:
            progress(min(start + chunk, len(summaries)), len(summaries))
    return dict(zip(RULES, by_rule)), own, unscorable


def run(model: JudgedModel, files: Sequence[str]) -> Run:
    """`evaluate MODEL_DIR --benchmark spans FILE --articles FILE` (or the folder `benchmarks fetch spans` wrote): the
    file and articles checked before the model loads, then the model's explained words beside the overlap baselines,
    the summary's own score and the two mixed (weights fit on val); each word rule's val ROC AUC beside."""
    articles, named = model.articles, [os.path.basename(f) for f in files]
    if articles is None and len(files) == 2 and named.count(ARTICLES) == 1:  # a fetched folder's two files
        articles = files[named.index(ARTICLES)]
        files = [f for f in files if f != articles]
    if len(files) != 1 or articles is None:
        raise BenchmarkError("--benchmark spans takes one file (hallucination_annotations_xsum_summaries.csv) and "
                             "--articles FILE (JSON Lines of bbcid, document)")
    row = model.row
    annotated, placement = read_spans(files[0])
    summaries, left_out = with_articles(annotated, read_articles(articles))
    if not summaries:
        raise BenchmarkError(f"no summary of {files[0]} has its article in {articles}" if annotated else
                             f"every summary of {files[0]} has a span placed nowhere (text not in the summary, "
                             f"offsets past its end; lines {', '.join(map(str, placement.nowhere_lines[:5]))})")
    on = VAL if model.val_only else TEST
    if model.val_only:  # a pilot: the test documents' summaries are never scored
        summaries = [s for s in summaries if s.cut == VAL]
    check_cuts(summaries, (VAL, TEST) if on == TEST else (VAL,))  # one line now, not after scoring
    granularity = model.granularity or "sentence"
    by_rule, own, unscorable = model_word_scores(
        model.scorer(granularity), summaries, progress=lambda done, total: print(
            f"{row}: explained {done} / {total} summaries", file=sys.stderr, flush=True))
    default = next(iter(RULES))
    baselines = overlap_scorers(summaries)
    mixed = f"{row} {WITH_OVERLAP}"
    scores = {row: by_rule[default], f"{row}: {SUMMARY_SCORE}": own, **baselines,
              mixed: with_overlap(summaries, by_rule[default], own)}
    report = evaluate_spans(summaries, scores, compare=[(row, [*baselines, f"{row}: {SUMMARY_SCORE}"]),
                                                        (mixed, [OVERLAP_MIX])], left_out=left_out,
                            placement=placement, on=on)
    report["rules"] = {name: val_roc_auc(summaries, values) for name, values in by_rule.items()}  # chosen on val
    report["unscorable"] = unscorable
    report["model"] = {"dir": model.dir, "files": list(files), "articles": articles, "granularity": granularity,
                       "score_mode": model.mode.config(), "precision": model.precision, "mix": OVERLAP_MIX,
                       **model.evidence_entry()}
    return Run(report, format_spans(report), card_section(report),
               (not_default(model.granularity, "sentence"), model.precision_part(), not_default(on, TEST),  # a pilot
                model.evidence_part()))
