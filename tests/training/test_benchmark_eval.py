"""The SummaC benchmark evaluator on small hand-written rows: reader layouts, the val-chosen threshold, balanced
accuracy and ROC AUC worked out by hand, the two baselines, and the table beside the paper's Table 2."""
import json
import random
import re

import numpy as np
import pytest

from entailgen.runners.cli import main
from entailgen.training.benchmarks.baselines import NER, UNIGRAM, entities_found, ner_overlap, unigram_overlap
from entailgen.training.benchmarks.files import BenchmarkError
from entailgen.training.benchmarks.metrics import (DrawnAuc, balanced_accuracy, central_95, choose_threshold,
                                                   gap_interval, group_draws, grouped_interval, roc_auc)
from entailgen.training.benchmarks.summac import (PAPER_TABLE_2, BenchmarkRow, evaluate_benchmark, format_table,
                                                  read_benchmark)

# 8 val rows (label, score). Thresholds t (consistent when score > t) and balanced accuracy (P = N = 4):
#   -0.9: tp 4 tn 0 -> (4/4 + 0/4)/2 = .500     0.15: tp 4 tn 1 -> .625     0.25: tp 4 tn 2 -> .750
#   0.35: tp 3 tn 2 -> .625     0.5: tp 3 tn 3 -> .750     0.65: tp 2 tn 3 -> .625     0.75: tp 2 tn 4 -> .750
#   0.85: tp 1 tn 4 -> .625     1.9: tp 0 tn 4 -> .500
# best .750 at 0.25, 0.5 and 0.75: the smallest, 0.25, is chosen.
# ROC AUC: consistent 0.9 beats 4 inconsistent, 0.8 beats 4, 0.6 beats 3 (0.4 0.2 0.1), 0.3 beats 2 -> 13/16.
VAL = [(1, 0.9), (1, 0.8), (0, 0.7), (1, 0.6), (0, 0.4), (1, 0.3), (0, 0.2), (0, 0.1)]


def test_threshold_balanced_accuracy_and_auc_on_eight_rows():
    labels, scores = [y for y, _ in VAL], [s for _, s in VAL]
    assert choose_threshold(labels, scores) == 0.25
    assert balanced_accuracy(labels, [int(s > 0.25) for s in scores]) == 0.75
    assert balanced_accuracy(labels, [int(s > 0.65) for s in scores]) == 0.625
    assert roc_auc(labels, scores) == 13 / 16


def test_auc_counts_a_tie_half():
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5
    assert roc_auc([1, 1, 0], [0.5, 0.7, 0.5]) == 0.75  # (0.5 vs 0.5: half) + (0.7 vs 0.5: 1) over 2 pairs


def row(ds, cut, label, claim, rid=None):
    """A row whose claim is its score; a document per cut, so no two rows of a dataset share their text."""
    return BenchmarkRow(id=rid or f"{ds}-{cut}-{claim}", document=f"doc {cut}", claim=claim, label=label, cut=cut,
                        dataset=ds, given_id=True)


def stub(pairs):
    """The claim is its own score."""
    return [float(c) for _, c in pairs]


def hand_rows():
    # xsumfaith: val = VAL (t = 0.25); test (1 .5) (1 .2) (0 .3) (0 .1) -> predicted 1 0 1 0: (1/2 + 1/2)/2 = 50.0;
    #   AUC: .5 beats .3 and .1, .2 beats .1 -> 3/4 = 75.0.
    # frank: val (1 .6) (0 .4) -> t 0.5 (both right); test (1 .7) (1 .55) (0 .45) (0 .6) -> predicted 1 1 0 1:
    #   (2/2 + 1/2)/2 = 75.0; AUC: .7 beats .45 and .6, .55 beats .45 -> 3/4 = 75.0.
    rows = [row("xsumfaith", "val", y, str(s)) for y, s in VAL]
    rows += [row("xsumfaith", "test", y, str(s)) for y, s in [(1, 0.5), (1, 0.2), (0, 0.3), (0, 0.1)]]
    rows += [row("frank", "val", y, str(s)) for y, s in [(1, 0.6), (0, 0.4)]]
    rows += [row("frank", "test", y, str(s)) for y, s in [(1, 0.7), (1, 0.55), (0, 0.45), (0, 0.6)]]
    return rows


def test_evaluate_benchmark_per_dataset_overall_and_paper_rows():
    report = evaluate_benchmark(hand_rows(), {"model": stub})
    assert report["datasets"] == ["xsumfaith", "frank"]  # the paper's column order
    model = report["scorers"]["model"]
    assert model["per_dataset"]["xsumfaith"] == {"threshold": 0.25, "val_balanced_accuracy": 75.0,
                                                 "balanced_accuracy": 50.0, "roc_auc": 75.0}
    assert model["per_dataset"]["frank"] == {"threshold": 0.5, "val_balanced_accuracy": 100.0,
                                             "balanced_accuracy": 75.0, "roc_auc": 75.0}
    assert model["overall"] == {"balanced_accuracy": 62.5, "roc_auc": 75.0}
    assert report["counts"]["xsumfaith"] == {"val": {"consistent": 4, "inconsistent": 4},
                                             "test": {"consistent": 2, "inconsistent": 2}}
    paper = report["paper_table_2"]["rows"]
    assert paper["SummaC-ZS"] == {"XSumFaith": 58.4, "FRANK": 79.0, "overall": 68.7, "paper_overall": 72.1}
    assert paper["NER-Overlap"]["overall"] == 62.1  # (63.3 + 60.9) / 2
    table = format_table(report)
    assert "| model | 50.0 | 75.0 | 62.5 |" in table
    assert "| SummaC-Conv (paper) | 66.4 | 81.6 | 74.0 |" in table
    assert "| method | XSumFaith | FRANK | overall |" in table
    assert all(f"| {m} (paper) |" in table for m in PAPER_TABLE_2)


def test_paper_overall_over_the_four_sets_of_the_issue():
    rows = [r._replace(dataset=ds) for ds in ("xsumfaith", "polytope", "summeval", "frank")
            for r in hand_rows() if r.dataset == "frank"]
    paper = evaluate_benchmark(rows, {"model": stub})["paper_table_2"]["rows"]
    assert {m: paper[m]["overall"] for m in ("FactCC-CLS", "DAE", "SummaC-ZS", "SummaC-Conv")} == {
        "FactCC-CLS": 59.5, "DAE": 61.4, "SummaC-ZS": 69.5, "SummaC-Conv": 73.1}


@pytest.mark.parametrize("drop, message", [
    (lambda r: r.cut == "test" and r.dataset == "frank",
     "dataset frank: no test cut (figures are measured on test; give the rows of both cuts)"),
    (lambda r: r.dataset == "frank" and r.cut == "val" and r.label == 0,
     "dataset frank, val cut: all 1 rows are labelled 1 (consistent); balanced accuracy needs both"),
])
def test_a_missing_or_one_class_cut_is_refused_with_one_line(drop, message):
    with pytest.raises(BenchmarkError) as e:
        evaluate_benchmark([r for r in hand_rows() if not drop(r)], {"model": stub})
    assert str(e.value) == message


def test_baselines_worked_by_hand():
    document = "The mayor of Paris opened a new bridge on Monday."
    # content words of the claim: mayor, opened, bridge, london (the, a, in are stop words); 3 of 4 in the document
    assert unigram_overlap(document, "The mayor opened a bridge in London.") == 0.75
    assert unigram_overlap(document, "Storms hit London.") == 0.0  # storms, hit, london: none in the document
    assert entities_found(document, ["paris", "Monday"]) == 1.0  # case-insensitive text match
    assert entities_found(document, ["Paris", "London"]) == 0.0
    assert ner_overlap(document, "The mayor of Paris opened a bridge.") == 1.0  # Paris
    assert ner_overlap(document, "The mayor of London opened a bridge.") == 0.0  # London is not in the document


def test_baselines_run_beside_the_model():
    report = evaluate_benchmark(hand_rows(), {"model": stub, UNIGRAM: lambda p: [0.5] * len(p),
                                              NER: lambda p: [1.0] * len(p)})
    assert list(report["scorers"]) == ["model", UNIGRAM, NER]
    assert report["scorers"][NER]["overall"] == {"balanced_accuracy": 50.0, "roc_auc": 50.0}  # one score: chance


def test_gap_interval_draws_the_same_rows_for_both_and_averages_over_datasets():
    labels = [1, 1, 0, 0]
    perfect, all_consistent, half = [1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 1, 0]
    # any draw holding both labels: perfect scores 1.0, all-consistent 0.5 -> the gap is 0.5 in every draw
    assert gap_interval([(labels, perfect, all_consistent)]) == (0.5, 0.5, 0.5)
    # the same predictions on both sides: 0 in every draw, only when a and b are drawn on the same rows
    assert gap_interval([(labels, half, half)]) == (0.0, 0.0, 0.0)
    # overall = mean over the datasets: (0.5 + 0) / 2
    assert gap_interval([(labels, perfect, all_consistent), (labels, half, half)]) == (0.25, 0.25, 0.25)
    # perfect against half-right (0.5 on these rows): the draws spread around it, the same for the same seed
    gap, low, high = gap_interval([(labels, perfect, half)], seed=3)
    assert gap == 0.5 and low < gap <= high and (gap, low, high) == gap_interval([(labels, perfect, half)], seed=3)


def test_the_interval_leaves_out_as_many_draws_below_as_above():
    """Of 1,000 draws 0, 1, ..., 999 (given in any order) the middle 95% runs from the 26th lowest to the 26th
    highest: 25 left out on each side; of 40 draws, 1 on each side."""
    assert central_95(list(reversed(range(1000)))) == (25, 974)
    assert central_95(list(range(40))) == (1, 38)


def test_a_drawn_auc_weighs_each_group_by_how_often_the_draw_holds_it_and_counts_a_tie_half():
    """Groups [1, 0] (scores 0.9, 0.5) drawn twice and [1] (0.5) once: positives 0.9, 0.9, 0.5 against negatives
    0.5, 0.5 win 4 pairs and tie 2 of 6, so 5/6; the bootstrap's AUC path gives scikit-learn's figure on every draw."""
    labels, scores = [[1, 0], [1]], [[0.9, 0.5], [0.5]]
    assert DrawnAuc(labels, scores)(np.array([2, 1])) == pytest.approx(5 / 6)
    assert roc_auc([1, 0, 1, 0, 1], [0.9, 0.5, 0.9, 0.5, 0.5]) == pytest.approx(5 / 6)
    # 0/1 predictions (spans' balanced accuracy draws take this path): recall 2/3 and 1, so 5/6 both ways
    assert roc_auc([1, 1, 1, 0], [1.0, 1.0, 0.0, 0.0]) == pytest.approx(balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0]))
    assert DrawnAuc([[1, 1], [1, 0]], [[1.0, 1.0], [0.0, 0.0]])(np.array([1, 1])) == pytest.approx(5 / 6)
    rng = random.Random(1)
    labels = [[int(rng.random() < 0.7) for _ in range(rng.randint(1, 9))] for _ in range(60)]
    scores = [[round(rng.random(), 1) for _ in g] for g in labels]  # one decimal: many ties
    base = [[round(rng.random(), 1) for _ in g] for g in labels]
    drawn = DrawnAuc(labels, scores)
    for k in group_draws(labels, 50, 3):
        expanded = ([v for i in k for v in labels[i]], [v for i in k for v in scores[i]])
        assert drawn(np.bincount(k, minlength=len(labels))) == pytest.approx(roc_auc(*expanded), abs=1e-12)
    plain = lambda y, s: roc_auc(y, s)  # noqa: E731 (any other measure takes the generic path)
    fast, generic = (grouped_interval(labels, scores, m, base, 200) for m in (roc_auc, plain))
    assert fast == pytest.approx(generic, abs=0.11)  # the same draws; rounded to 0.1, a last bit may move one


def test_each_scorer_is_compared_with_unigram_overlap_on_the_test_rows():
    report = evaluate_benchmark(hand_rows(), {"model": stub, UNIGRAM: lambda p: [0.5] * len(p),
                                              NER: lambda p: [1.0] * len(p)})
    # unigram overlap: one score, 50.0 on both sets; the model 50.0 and 75.0 -> +12.5 overall
    gap = report["scorers"]["model"]["gap_to_unigram"]
    assert gap["balanced_accuracy"] == 12.5 and gap["interval_95"][0] <= 12.5 <= gap["interval_95"][1]
    assert report["scorers"][NER]["gap_to_unigram"] == {  # both predict one label everywhere: 0 in every draw
        "balanced_accuracy": 0.0, "interval_95": [0.0, 0.0],
        "how": "paired bootstrap over the test rows, 1000 draws, seed 0"}
    assert "gap_to_unigram" not in report["scorers"][UNIGRAM]
    # per dataset, each on its own rows: xsumfaith 50.0 - 50.0 = 0.0, frank 75.0 - 50.0 = +25.0
    per_set = {d: r["gap_to_unigram"] for d, r in report["scorers"]["model"]["per_dataset"].items()}
    assert [per_set[d]["balanced_accuracy"] for d in ("xsumfaith", "frank")] == [0.0, 25.0]
    assert all(g["interval_95"][0] <= g["balanced_accuracy"] <= g["interval_95"][1] for g in per_set.values())
    assert per_set["frank"]["interval_95"] != per_set["xsumfaith"]["interval_95"]
    assert [r["gap_to_unigram"] for r in report["scorers"][NER]["per_dataset"].values()] == [
        {"balanced_accuracy": 0.0, "interval_95": [0.0, 0.0]}] * 2
    table = format_table(report)
    assert "model: +12.5 points of overall balanced accuracy against unigram overlap, 95% interval [" in table
    assert ("NER overlap: +0.0 points of overall balanced accuracy against unigram overlap, 95% interval [+0.0, +0.0] "
            "(paired bootstrap over the test rows); per dataset XSumFaith +0.0 [+0.0, +0.0], FRANK +0.0 [+0.0, +0.0]"
            in table)
    assert "; per dataset XSumFaith +0.0 [" in table and "], FRANK +25.0 [" in table
    assert "gap_to_unigram" not in evaluate_benchmark(hand_rows(), {"model": stub})["scorers"]["model"]


DICT_LAYOUT = {"a1": {"document": "D one.", "claim": "C one.", "label": "1", "cut": "val", "model_name": "M1"},
               "a2": {"document": "D two.", "claim": "C two.", "label": 0, "cut": "test"}}


def test_dict_json_and_jsonl_read_to_the_same_rows(tmp_path):
    (tmp_path / "dict").mkdir()
    (tmp_path / "dict" / "xsumfaith.json").write_text(json.dumps(DICT_LAYOUT, indent=1))
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps({"id": k, "dataset": "xsumfaith", **v}) + "\n\n"
                                                 for k, v in DICT_LAYOUT.items()))
    (tmp_path / "list.json").write_text(json.dumps([{"id": k, "dataset": "xsumfaith", **v}
                                                    for k, v in DICT_LAYOUT.items()]))
    expected = [BenchmarkRow("a1", "D one.", "C one.", 1, "val", "xsumfaith", "M1", given_id=True),
                BenchmarkRow("a2", "D two.", "C two.", 0, "test", "xsumfaith", None, given_id=True)]
    for name, where in (("dict/xsumfaith.json", ["id a1", "id a2"]),  # dataset: the file's stem
                        ("rows.jsonl", ["line 1", "line 3"]), ("list.json", ["row 1", "row 2"])):
        rows = read_benchmark([str(tmp_path / name)])
        assert [r._replace(where="") for r in rows] == expected
        assert [r.where for r in rows] == [f"{tmp_path / name} {w}" for w in where]
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + (tmp_path / name).read_bytes())  # a UTF-8 BOM: read past
        assert read_benchmark([str(tmp_path / name)]) == rows
    (tmp_path / "no-ids.jsonl").write_text(json.dumps(GOOD) + "\n")  # an id made from its place names no row
    (made,) = read_benchmark([str(tmp_path / "no-ids.jsonl")])
    assert (made.id, made.where, made.given_id) == ("no-ids-1", f"{tmp_path / 'no-ids.jsonl'} line 1", False)


GOOD = {"document": "D.", "claim": "C.", "label": 1, "cut": "val"}
BAD_FILES = {  # name: (content, the one-line error after the path)
    "missing.jsonl": (json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "label": None}), " line 2: missing field 'label'"),
    "label.json": (json.dumps({"r1": GOOD, "r2": {**GOOD, "label": 2}}),
                   " id r2: label must be 1 (consistent) or 0 (inconsistent), got 2"),
    "cut.json": (json.dumps([GOOD, {**GOOD, "cut": "train"}]), " row 2: cut must be 'val' or 'test', got 'train'"),
    "badline.jsonl": (json.dumps(GOOD) + "\n{\"document\": \n", " line 2: bad JSON: Expecting value"),
    "broken.json": ('{"r1": {"document": "D.",\n  "claim" "C."}}', ": bad JSON at line 2 column 11: Expecting ':' "
                                                                   "delimiter"),
    "empty.jsonl": ("\n \n", ": empty file, no benchmark rows"),
    "surrogate.jsonl": (json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "claim": "C \ud800."}),  # a JSON escape
                        " line 2: claim holds a lone surrogate ('\\ud800' at character 3), not text a model can read"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_input_is_one_line_naming_file_and_row(tmp_path, name):
    content, message = BAD_FILES[name]
    (tmp_path / name).write_text(content)
    with pytest.raises(BenchmarkError) as e:
        read_benchmark([str(tmp_path / name)])
    assert str(e.value) == f"{tmp_path / name}{message}"


@pytest.mark.parametrize("name", ["label.json", "badline.jsonl", "cut.json"])
def test_cli_bad_benchmark_file_exits_2_with_one_line(tmp_path, capsys, name):
    content, message = BAD_FILES[name]
    (tmp_path / name).write_text(content)
    assert main(["evaluate", str(tmp_path), "--benchmark", "summac", str(tmp_path / name)]) == 2
    assert capsys.readouterr().err.strip() == f"entailgen: error: {tmp_path / name}{message}"


def test_cli_one_class_cut_exits_2_before_any_model_loads(tmp_path, capsys):  # no model dir at all
    (tmp_path / "frank.jsonl").write_text(json.dumps({**GOOD, "cut": "val"}) + "\n"
                                          + json.dumps({**GOOD, "claim": "C2.", "cut": "test", "label": 0}) + "\n")
    assert main(["evaluate", str(tmp_path / "no-model"), "--benchmark", "summac", str(tmp_path / "frank.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: dataset frank, val cut: all 1 rows are labelled 1 "
                                               "(consistent); balanced accuracy needs both")


def test_a_scorer_returning_nan_or_too_few_scores_is_one_line():
    with pytest.raises(ValueError, match="^scorer model returned a score that is not a finite number$"):
        evaluate_benchmark(hand_rows(), {"model": lambda p: [float("nan")] * len(p)})
    with pytest.raises(ValueError, match="^scorer model returned 1 scores for 18 rows$"):
        evaluate_benchmark(hand_rows(), {"model": lambda p: [0.5]})


TRAIN_JSON = {"task": "pair", "dataset": "/data/claims", "dataset_pipeline": "claims", "device": "cpu",
              "dataset_manifest_sha256": "0" * 64, "best_epoch": 1, "dev_accuracy": [0.5], "counts": {},
              "options": {"encoder": "tiny", "epochs": 1, "batch_size": 2, "lr": 1e-4, "max_length": 32,
                          "max_arcs": 20, "seed": 0}}


def test_a_report_is_named_by_its_files_and_how_they_were_scored():
    from entailgen.training.fitting.model_card import benchmark_report_name

    assert benchmark_report_name("true", ["/data/q2.csv"]) == "benchmark-true.q2.json"
    assert benchmark_report_name("true", ["begin_dev.csv"], "", "-int8", "-e-c-mc8-seed0") == \
        "benchmark-true.begin_dev-int8-e-c-mc8-seed0.json"
    assert benchmark_report_name("summac", [f"data/{s}.json" for s in ("cogensumm", "frank")], "-2sents") == \
        "benchmark-summac.cogensumm+frank-2sents.json"
    assert benchmark_report_name("rank19", ["my pairs (v2).json"]) == "benchmark-rank19.my_pairs__v2_.json"
    # a run's parts: an option at its default adds nothing; a Conv head and ensemble members add their dir names
    from entailgen.training.benchmarks.judged import dirs_part, not_default

    how = [not_default("sentence", "sentence"), dirs_part("conv", ["/heads/conv-a/"]),
           dirs_part("with", ["/m/b", "/m/c"]), dirs_part("with", []), not_default("int8", "auto")]
    assert benchmark_report_name("summac", ["toy.jsonl"], *how) == "benchmark-summac.toy-conv-conv-a-with-b+c-int8.json"
    # 20 files: the first 87 characters of their stems, then the digest of the whole key
    many = benchmark_report_name("summac", [f"set{i:02d}.jsonl" for i in range(20)])
    assert many.startswith("benchmark-summac.set00+set01+") and many.endswith(".json")
    assert len(many) == len("benchmark-summac.") + 96 + len(".json") and many[-14] == "-"
    assert many != benchmark_report_name("summac", [f"set{i:02d}.jsonl" for i in range(21)])


def test_a_report_of_other_files_under_the_name_or_a_damaged_one_is_kept(tmp_path):
    from entailgen.training.fitting.model_card import kept_report_name

    assert kept_report_name(str(tmp_path), "true", ["a/q2.csv"], "-int8") == "benchmark-true.q2-int8.json"  # free
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "benchmark-true.q2-int8.json").write_text("{")  # damaged: not replaced
    assert re.fullmatch(r"benchmark-true\.q2-at-[0-9a-f]{8}-int8\.json",
                        kept_report_name(str(tmp_path), "true", ["a/q2.csv"], "-int8"))


def test_report_is_written_atomically_and_the_card_shows_the_table(tmp_path):
    from entailgen.training.benchmarks.summac import card_section
    from entailgen.training.fitting.model_card import save_evaluation

    (tmp_path / "train.json").write_text(json.dumps(TRAIN_JSON))
    report = evaluate_benchmark(hand_rows(), {"model": stub})
    report["model"] = {"granularity": "sentence", "aggregation": "zs", "conv_dir": None}
    report = {**report, "card_section": card_section(report)}  # kept in the report as the evaluator keeps it
    path = save_evaluation(str(tmp_path), "benchmark-summac.json", report)
    assert path == str(tmp_path / "eval" / "benchmark-summac.json")
    assert json.loads((tmp_path / "eval" / "benchmark-summac.json").read_text()) == report
    assert sorted(p.name for p in (tmp_path / "eval").iterdir()) == ["benchmark-summac.json"]  # no temporary left
    card = (tmp_path / "README.md").read_text()
    assert "## The summac benchmark (granularity sentence, aggregation zs)" in card
    assert "| model | 50.0 | 75.0 | 62.5 |\n| NER-Overlap (paper) | 63.3 | 60.9 | 62.1 |" in card
    del report["card_section"]  # a report an older entailgen wrote: named, with the command that shows it again
    save_evaluation(str(tmp_path), "benchmark-summac.json", report)
    card = (tmp_path / "README.md").read_text()
    assert "## The summac benchmark\n\nA report of an older entailgen: `entailgen evaluate MODEL_DIR --benchmark " \
           "summac FILE...` writes its table here again." in card


@pytest.mark.parametrize("argv, message", [
    (["--benchmark", "truthfulqa", "x.json"],
     "--benchmark truthfulqa: unknown benchmark (known: summac, rank19, true, spans)"),
    (["--benchmark", "summac"], "--benchmark summac needs the benchmark's files (data/<set>.json or JSON Lines)"),
    ([], "evaluate needs a DATASET or --benchmark summac FILE..."),
    (["data", "--granularity", "sentence"],
     "--granularity, --aggregation, --conv, --ensemble, --evidence, --top-k and --max-length are for --benchmark"),
    (["data", "--evidence", "arcs"],
     "--granularity, --aggregation, --conv, --ensemble, --evidence, --top-k and --max-length are for --benchmark"),
    (["--benchmark", "summac", "x.json", "--aggregation", "zs", "--conv", "c"],
     "--conv is a SummaC-Conv head: give --aggregation conv, or leave --aggregation out"),
])
def test_cli_benchmark_options_misused_are_one_line(tmp_path, capsys, argv, message):
    assert main(["evaluate", str(tmp_path), *argv]) == 2
    assert capsys.readouterr().err.strip() == f"entailgen: error: {message}"


class StubDocumentScorer:
    """Stands in for training.scoring.document_scorer.DocumentScorer: the claim is its own score ("long": unscorable);
    the rows it scores are counted in `scored_rows`, and it is stopped (KeyboardInterrupt, as Ctrl-C) at call
    `stop_at`."""

    scored_rows: list = []
    stop_at = None

    def __init__(self, model_dir, granularity="sentence", aggregation="zs", conv_dir=None, device="cpu",
                 precision="auto", **mode):
        self.granularity, self.aggregation, self.conv_dir = granularity, aggregation, conv_dir
        self.calls = 0

    def split_key(self):
        return ()

    def split(self, documents, summaries):
        return [None] * len(documents)

    def scored(self, rows, split=None):
        from entailgen.training.scoring.scorers import Unscorable

        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        type(self).scored_rows.extend(c for _, c in rows)
        return [Unscorable("TooLong", "the hypothesis alone fills the model's 128 tokens") if c == "long"
                else {"score": float(c)} for _, c in rows]


def stub_model(tmp_path, monkeypatch, stop_at=None):
    """A model dir the StubDocumentScorer stands in for, scores cached under tmp_path/cache; returns its scored rows."""
    from entailgen.training.fitting import checkpoint
    from entailgen.training.scoring import document_scorer

    monkeypatch.setattr(document_scorer, "DocumentScorer", StubDocumentScorer)
    monkeypatch.setattr(StubDocumentScorer, "scored_rows", [])
    monkeypatch.setattr(StubDocumentScorer, "stop_at", stop_at)
    monkeypatch.setattr(checkpoint, "verify_model_dir", lambda directory: {})  # no weights in this stand-in dir
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "m").mkdir(exist_ok=True)
    (tmp_path / "m" / "train.json").write_text(json.dumps(TRAIN_JSON))
    return StubDocumentScorer.scored_rows


def test_cli_prints_the_table_and_writes_the_report(tmp_path, capsys, monkeypatch):
    from entailgen.training.fitting import checkpoint
    from entailgen.training.scoring import document_scorer

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(document_scorer, "DocumentScorer", StubDocumentScorer)
    monkeypatch.setattr(checkpoint, "verify_model_dir", lambda directory: {})  # no weights in this stand-in dir
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "train.json").write_text(json.dumps(TRAIN_JSON))
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r._asdict()) + "\n" for r in hand_rows()))
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "summac", str(tmp_path / "rows.jsonl"),
                 "--granularity", "2sents"]) == 0
    out = capsys.readouterr().out
    assert "| entailgen model | 50.0 | 75.0 | 62.5 |" in out and "| SummaC-ZS (paper) | 58.4 | 79.0 | 68.7 |" in out
    report = json.loads((tmp_path / "m" / "eval" / "benchmark-summac.rows-2sents.json").read_text())
    assert list(report["scorers"]) == ["entailgen model", UNIGRAM, NER]
    assert report["model"]["granularity"] == "2sents" and report["model"]["aggregation"] == "zs"
    assert "| entailgen model | 50.0 | 75.0 | 62.5 |" in (tmp_path / "m" / "README.md").read_text()


def test_progress_counts_rows_scored_on_stderr():
    import io

    from entailgen.training.scoring.cache import with_progress

    stream = io.StringIO()
    pairs = [("doc", str(s)) for s in (0.1, 0.2, 0.3, 0.4, 0.5)]
    assert with_progress(stub, "model", chunk=2, every_s=0, stream=stream)(pairs) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert [line.split(" (")[0] for line in stream.getvalue().splitlines()] == [
        "model: scored 2 / 5 rows", "model: scored 4 / 5 rows", "model: scored 5 / 5 rows"]


def test_cli_a_dir_that_is_not_a_model_is_one_line(tmp_path, capsys):
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r._asdict()) + "\n" for r in hand_rows()))
    assert main(["evaluate", str(tmp_path), "--benchmark", "summac", str(tmp_path / "rows.jsonl")]) == 2
    assert capsys.readouterr().err.strip().startswith(f"entailgen: error: {tmp_path}")


# Issue 42: every row gets a score; a row the model cannot score is scored 0.0 and counted, never an error.

def unscorable_at(claim):
    """A scorer like `stub`, but the row whose claim is `claim` it cannot score."""
    from entailgen.training.scoring.scorers import Unscorable

    return lambda pairs: [Unscorable("TooLong", "too long") if c == claim else float(c) for _, c in pairs]


def test_a_row_the_model_cannot_score_is_scored_zero_and_counted_by_dataset_and_cut():
    from entailgen.training.scoring.unscorable import every_scored
    from entailgen.training.scoring.scorers import Unscorable

    assert every_scored([0.5, Unscorable("TooLong", "too long"), 0.25]) == [0.5, 0.0, 0.25]
    # frank's test row (1, 0.55) unscorable -> 0.0: test scores 0.7 (1), 0.0 (1), 0.45 (0), 0.6 (0); val t 0.5 ->
    # predicted 1 0 0 1: (1/2 + 1/2) / 2 = 50.0; AUC: 0.7 beats 0.45 and 0.6, 0.0 beats neither -> 2/4 = 50.0.
    # xsumfaith as before (50.0, 75.0); overall 50.0 and 62.5.
    report = evaluate_benchmark(hand_rows(), {"model": unscorable_at("0.55")})
    model = report["scorers"]["model"]
    assert model["per_dataset"]["frank"] == {"threshold": 0.5, "val_balanced_accuracy": 100.0,
                                             "balanced_accuracy": 50.0, "roc_auc": 50.0}
    assert model["overall"] == {"balanced_accuracy": 50.0, "roc_auc": 62.5}
    assert model["unscorable"] == {"xsumfaith": {"val": 0, "test": 0}, "frank": {"val": 0, "test": 1}}
    assert ("model: 1 row it could not score, each scored 0.0 (the lowest score: inconsistent at any threshold that "
            "finds a row inconsistent): FRANK 0 val + 1 test") in format_table(report).splitlines()
    # a val row (xsumfaith (1, 0.9)) unscorable too: counted in its own cut
    both = evaluate_benchmark(hand_rows(), {"model": lambda p: [
        unscorable_at("0.9")([x])[0] if x[1] == "0.9" else unscorable_at("0.55")([x])[0] for x in p]})
    assert both["scorers"]["model"]["unscorable"] == {"xsumfaith": {"val": 1, "test": 0},
                                                      "frank": {"val": 0, "test": 1}}
    assert "model: 2 rows it could not score" in format_table(both)
    clean = format_table(evaluate_benchmark(hand_rows(), {"model": stub}))
    assert "could not score" not in clean and "given twice" not in clean and "sharing" not in clean


# Issue 38: a row given twice is scored once (counted); two readings of one row that disagree are refused.

def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_a_row_given_twice_is_scored_once_and_counted(tmp_path):
    from entailgen.training.benchmarks.summac import distinct_rows

    frank = write(tmp_path / "frank.jsonl", [{**GOOD, "id": "f1"}, {**GOOD, "id": "f2", "claim": "C2.", "label": 0}])
    plain = write(tmp_path / "plain.jsonl", [GOOD, {**GOOD, "claim": "C2."}, GOOD])  # no ids: line 3 is line 1
    rows, left_out = distinct_rows(read_benchmark([frank, plain, frank]))  # frank.jsonl given twice
    assert [(r.dataset, r.id) for r in rows] == [("frank", "f1"), ("frank", "f2"), ("plain", "plain-1"),
                                                 ("plain", "plain-2")]
    assert left_out == {"frank": 2, "plain": 1}
    report = evaluate_benchmark(hand_rows(), {"model": stub}, duplicates={"frank": 2})
    assert report["duplicates_left_out"] == {"xsumfaith": 0, "frank": 2}
    assert ("rows given twice (the same id, or the same document, claim and system), scored once: FRANK 2"
            in format_table(report).splitlines())
    with pytest.raises(ValueError, match="^6 rows given twice: evaluate distinct_rows"):  # scored twice: refused
        evaluate_benchmark(hand_rows() + [r for r in hand_rows() if r.dataset == "frank"], {"model": stub})


def test_separate_annotations_of_the_same_text_are_kept_as_the_paper_keeps_them(tmp_path):
    """SummaC's Polytope: two systems wrote the same summary, each annotated under its own id (once labelled apart)."""
    from entailgen.training.benchmarks.summac import distinct_rows, repeated_text

    path = write(tmp_path / "polytope.jsonl", [
        {**GOOD, "id": "99-8"}, {**GOOD, "id": "99-3"}, {**GOOD, "id": "67-5", "label": 0},
        {**GOOD, "claim": "C2.", "model_name": "BART"}, {**GOOD, "claim": "C2.", "model_name": "PG", "cut": "test"}])
    rows, left_out = distinct_rows(read_benchmark([path]))
    assert len(rows) == 5 and left_out == {}
    assert repeated_text(rows) == {"polytope": 3}  # 99-3 and 67-5 repeat 99-8's text, PG's row BART's
    report = evaluate_benchmark(hand_rows() + [r._replace(dataset="frank", id=f"p{i}") for i, r in enumerate(rows)],
                                {"model": lambda p: [0.5] * len(p)})
    assert report["repeated_text"] == {"xsumfaith": 0, "frank": 3}
    assert ("rows sharing an earlier row's document and claim under an id or system of their own (separate "
            "annotations, each scored, as the paper counts them): FRANK 3") in format_table(report).splitlines()


CONFLICTS = {  # name: (files as (name, rows), the message after the paths)
    "same id, other label": ([("a/frank.json", {"r1": GOOD}), ("b/frank.json", {"r1": {**GOOD, "label": 0}})],
                             "{0} id r1 and {1} id r1 (dataset frank): one row (id r1 twice) labelled 1 and 0; keep "
                             "the right one"),
    "no id, other cut": ([("x.jsonl", [GOOD, {**GOOD, "cut": "test"}])],
                         "{0} line 1 and {0} line 2 (dataset x): one row (the same document and claim, and no id or "
                         "system to tell them apart) in the val and test cuts; keep the right one"),
    "same id, other text": ([("y.json", [{**GOOD, "id": 7}, {**GOOD, "id": 7, "claim": "C2.", "model_name": "M"}])],
                            "{0} row 1 and {0} row 2 (dataset y): one row (id 7 twice) with other document or claim "
                            "text, from systems None and M; keep the right one"),
}


@pytest.mark.parametrize("name", sorted(CONFLICTS))
def test_two_readings_of_one_row_that_disagree_are_refused_in_one_line(tmp_path, capsys, name):
    from entailgen.training.benchmarks.summac import distinct_rows

    files, message = CONFLICTS[name]
    paths = []
    for file, content in files:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(json.dumps(content) if file.endswith(".json") else
                                     "".join(json.dumps(r) + "\n" for r in content))
        paths.append(str(tmp_path / file))
    expected = message.format(*paths)
    with pytest.raises(BenchmarkError) as e:
        distinct_rows(read_benchmark(paths))
    assert str(e.value) == expected
    assert main(["evaluate", str(tmp_path / "no-model"), "--benchmark", "summac", *paths]) == 2
    assert capsys.readouterr().err.strip() == f"entailgen: error: {expected}"


def test_cli_counts_a_file_given_twice_and_its_figures_are_unchanged(tmp_path, capsys, monkeypatch):
    scored = stub_model(tmp_path, monkeypatch)
    write(tmp_path / "rows.jsonl", [r._asdict() for r in hand_rows()])
    rows = str(tmp_path / "rows.jsonl")
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "summac", rows, rows]) == 0
    out = capsys.readouterr().out
    assert "| entailgen model | 50.0 | 75.0 | 62.5 |" in out  # as given once
    assert "rows given twice (the same id, or the same document, claim and system), scored once: XSumFaith 12, " \
           "FRANK 6" in out.splitlines()
    report = json.loads((tmp_path / "m" / "eval" / "benchmark-summac.rows+rows.json").read_text())
    assert report["duplicates_left_out"] == {"xsumfaith": 12, "frank": 6}
    assert report["counts"]["frank"]["test"] == {"consistent": 2, "inconsistent": 2}
    assert len(scored) == 16  # the distinct (document, claim) rows, each once
    assert "FRANK 6." in (tmp_path / "m" / "README.md").read_text()  # the card's notes


# Issue 42: a killed evaluation keeps what it scored; the rerun scores only the rest, to the same figures.

def test_a_killed_evaluation_rerun_scores_only_the_rest_to_the_same_figures(tmp_path, capsys, monkeypatch):
    from entailgen.training.scoring import cache as score_cache

    monkeypatch.setattr(score_cache, "SCORE_CHUNK", 4)
    write(tmp_path / "rows.jsonl", [r._asdict() for r in hand_rows()])
    argv = ["evaluate", str(tmp_path / "m"), "--benchmark", "summac", str(tmp_path / "rows.jsonl")]
    # 16 distinct (document, claim) rows (frank's val rows are xsumfaith's), in the file's order, in chunks of 4:
    # xsumfaith val 0.9 0.8 0.7 0.6 | 0.4 0.3 0.2 0.1 | xsumfaith test 0.5 0.2 0.3 0.1 | frank test 0.7 0.55 0.45 0.6;
    # Ctrl-C in the third chunk
    scored = stub_model(tmp_path, monkeypatch, stop_at=3)
    assert main(argv) == 130
    assert scored == ["0.9", "0.8", "0.7", "0.6", "0.4", "0.3", "0.2", "0.1"]
    assert not (tmp_path / "m" / "eval").exists()  # no report from a run that did not finish
    capsys.readouterr()
    scored = stub_model(tmp_path, monkeypatch)
    assert main(argv) == 0
    assert scored == ["0.5", "0.2", "0.3", "0.1", "0.7", "0.55", "0.45", "0.6"]  # only those the killed run had not
    out, err = capsys.readouterr()
    assert "entailgen model: 8 of 16 distinct rows read from the score cache, 8 to score (" in err
    resumed = json.loads((tmp_path / "m" / "eval" / "benchmark-summac.rows.json").read_text())
    assert "| entailgen model | 50.0 | 75.0 | 62.5 |" in out
    (cache,) = resumed["model"]["score_caches"]
    assert cache.startswith(str(tmp_path / "cache" / "entailgen" / "scores" / "m-"))
    # a run with nothing cached, in another cache folder: the same figures
    scored = stub_model(tmp_path, monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
    assert main(argv) == 0 and len(scored) == 16
    whole = json.loads((tmp_path / "m" / "eval" / "benchmark-summac.rows.json").read_text())
    assert whole["scorers"] == resumed["scorers"]
    # a third run reads every row: no model is even built
    monkeypatch.setattr(StubDocumentScorer, "__init__", lambda *a, **k: pytest.fail("a model built for no row"))
    assert main(argv) == 0
    report = tmp_path / "m" / "eval" / "benchmark-summac.rows.json"
    assert json.loads(report.read_text())["scorers"] == whole["scorers"]


def test_the_fetch_record_a_glob_matches_is_said_and_left_out(tmp_path, capsys, monkeypatch):
    """`evaluate MODEL --benchmark summac DIR/*.json` as docs/summac.md writes it: DIR holds fetch.json too."""
    stub_model(tmp_path, monkeypatch)
    folder = tmp_path / "summac"
    folder.mkdir()
    write(folder / "rows.json", [r._asdict() for r in hand_rows()])
    (folder / "fetch.json").write_text(json.dumps({"benchmark": "summac", "entailgen_version": "0", "notes": [],
                                                   "files": {"rows.json": {"rows": 16, "sha256": "0" * 64}},
                                                   "sources": []}))
    files = sorted(str(p) for p in folder.glob("*.json"))
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "summac", *files]) == 0
    out, err = capsys.readouterr()
    assert f"leaving out {folder / 'fetch.json'}: the record of a benchmarks fetch, not a benchmark set" in \
        err.splitlines()
    assert "| entailgen model | 50.0 | 75.0 | 62.5 |" in out
    assert (tmp_path / "m" / "eval" / "benchmark-summac.rows.json").exists()  # named by the sets read
    (folder / "fetch.json").write_text("[1, 2]")  # a file of that name that is no record: read, and refused
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "summac", *files]) == 2
    assert capsys.readouterr().err.strip().endswith("fetch.json row 1: expected an object with document, claim, label, "
                                                    "cut; got int")


def test_evidence_reaches_the_scorer_and_names_the_report_and_its_own_score_cache(tmp_path, capsys, monkeypatch):
    """--evidence block --max-length 256: the scorer is built with them, the report and the score cache say so (a
    run at the default, arcs, after it scores every row again: another cache; `--evidence arcs` is that default, its
    cache read back), rank19 (sentence pairs) refuses them in one line."""
    built = []
    monkeypatch.setattr(StubDocumentScorer, "__init__", lambda self, *a, **how: built.append(how) or setattr(
        self, "calls", 0))
    write(tmp_path / "rows.jsonl", [r._asdict() for r in hand_rows()])
    argv = ["evaluate", str(tmp_path / "m"), "--benchmark", "summac", str(tmp_path / "rows.jsonl")]
    scored = stub_model(tmp_path, monkeypatch)
    assert main([*argv, "--evidence", "block", "--max-length", "256"]) == 0
    assert (built[-1]["evidence"], built[-1]["max_length"], built[-1]["top_k"]) == ("block", 256, None)
    report = json.loads((tmp_path / "m" / "eval" / "benchmark-summac.rows-block-256.json").read_text())
    assert report["model"]["evidence"] == {"evidence": "block", "top_k": None, "max_length": 256}
    (cache,) = report["model"]["score_caches"]
    assert cache.endswith("-block-256.json") and len(scored) == 16
    scored.clear()
    assert main(argv) == 0 and len(scored) == 16  # the default's scores are not block's: scored again
    assert built[-1]["evidence"] is None  # the scorer's own default, arcs (training.scoring.passages.resolved)
    scored.clear()
    assert main([*argv, "--evidence", "arcs"]) == 0 and scored == []  # the default by name: its cache read back
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "m"), "--benchmark", "rank19", str(tmp_path / "rows.jsonl"),
                 "--evidence", "packed"]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: --evidence, --top-k and --max-length read "
                                               "documents: --benchmark rank19 scores sentence pairs")
