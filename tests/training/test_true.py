"""TRUE (Honovich et al. 2022) as With a Little Push measures it: ROC AUC and its bootstrap worked by hand, the CSV
layout and its one-line refusals, one-sentence groundings scored as pairs and longer ones as documents, and
`evaluate --benchmark true` end to end on a tiny pair model."""
import json
import re

import pytest

from entailgen.runners.cli import main
from entailgen.training.benchmarks.files import BenchmarkError
from entailgen.training.benchmarks.metrics import auc_gap, auc_interval
from entailgen.training.benchmarks.true import (PAPER_TABLE_1, UNIGRAM, TrueRow, evaluate_true, model_scores, read_true,
                                                set_of)
from entailgen.training.scoring.document_scorer import DocumentScorer
from trainer_fixtures import tiny_pair_model

LABELS, SCORES = [1, 0, 1, 0, 1, 0], [0.8, 0.8, 0.3, 0.5, 0.9, 0.1]


def test_roc_auc_counts_a_tie_half_and_its_bootstrap_is_seeded():
    # consistent 0.8, 0.3, 0.9 against inconsistent 0.8, 0.5, 0.1: 0.8 wins 2 and ties 1 (2.5), 0.3 wins 1, 0.9 wins 3:
    # 6.5 of 9 pairs
    assert auc_interval(LABELS, SCORES, resamples=3)[0] == 72.2
    # random.Random(0) draws rows [3,3,0,2,4,3], [3,2,3,2,4,1], [4,1,2,1,0,4]: consistent {0.8, 0.3, 0.9} against
    # {0.5, 0.5, 0.5}: 6/9; {0.3, 0.3, 0.9} against {0.5, 0.5, 0.8}: 3/9; {0.9, 0.3, 0.8, 0.9} against {0.8, 0.8}:
    # 2 + 0 + (0.5 + 0.5) + 2 = 5/8. Of 3 draws the middle 95% leaves none out: [33.3, 66.7]
    assert auc_interval(LABELS, SCORES, resamples=3) == (72.2, 33.3, 66.7)
    assert auc_interval(LABELS, SCORES) == auc_interval(LABELS, SCORES, seed=0)  # seeded: the same interval again
    # a draw of one label only has no AUC and is drawn again: perfectly separated rows give [100, 100]
    assert auc_interval([1, 1, 0, 0, 1], [0.9, 0.6, 0.2, 0.1, 0.7], resamples=20) == (100.0, 100.0, 100.0)


def test_a_methods_gap_to_its_base_is_paired_on_the_same_draws():
    # a constant base ties every pair: AUC 50 on every draw. The gap: 72.2 - 50 = 22.2 on all rows; on the three draws
    # above 6/9, 3/9, 5/8 against 1/2: +16.7, -16.7, +12.5, so [-16.7, +16.7]
    assert auc_gap(LABELS, SCORES, [0.5] * 6, resamples=3) == (22.2, -16.7, 16.7)
    # a base that ranks too: [0.2, 0.6, 0.7, 0.1, 0.4, 0.3] wins 6 of 9 pairs on all rows (gap 72.2 - 66.7 = 5.6), on
    # the draws {0.2, 0.7, 0.4} against {0.1, 0.1, 0.1}: 9/9; {0.7, 0.7, 0.4} against {0.1, 0.1, 0.6}: 8/9; {0.4, 0.7,
    # 0.2, 0.4} against {0.6, 0.6}: 2/8. Gaps 6/9 - 1, 3/9 - 8/9, 5/8 - 2/8: -33.3, -55.6, +37.5
    assert auc_gap(LABELS, SCORES, [0.2, 0.6, 0.7, 0.1, 0.4, 0.3], resamples=3) == (5.6, -55.6, 37.5)


def write_csv(path, rows, header="grounding,generated_text,label"):
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write(header + "\n")
        csv.writer(f).writerows(rows)
    return path


def test_true_csv_is_read_and_a_bad_file_is_one_line(tmp_path):
    rows = [["A cat sat.", "The cat sat, yes.", "1", "x"], ["A cat sat.", "No.", "0", "y"]]
    good = write_csv(tmp_path / "q2.csv", rows, "grounding,generated_text,label,extra")
    assert read_true(str(good)) == [TrueRow("A cat sat.", "The cat sat, yes.", 1, f"{good} line 2", (("extra", "x"),)),
                                    TrueRow("A cat sat.", "No.", 0, f"{good} line 3", (("extra", "y"),))]
    assert set_of(str(good)) == "Q2" and set_of("begin_dev_tc.csv") == "BEGIN" and set_of("other.csv") is None
    for name, rows, header, message in [
            ("a.csv", [["A", "B", "1"]], "grounding,response,label",
             "no column generated_text (TRUE's layout: grounding, generated_text, label; its header: grounding, "
             "response, label)"),
            ("b.csv", [["A", "B", "yes"]], None, "line 2: label must be 1 (consistent) or 0 (inconsistent), got 'yes'"),
            ("c.csv", [["A", " ", "1"]], None, "line 2: no text in generated_text"),
            ("d.csv", [["A", "B", "1"], ["A", "C", "1"]], None, "2 rows, not rows of both labels")]:
        path = write_csv(tmp_path / name, rows, header or "grounding,generated_text,label")
        with pytest.raises(BenchmarkError) as e:
            read_true(str(path))
        assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(BenchmarkError, match="cannot read TRUE file .*missing.csv: No such file"):
        read_true(str(tmp_path / "missing.csv"))


GROUNDING_2 = "The cat sat on the mat. The dog slept."
CELLS = {("The cat sat on the mat.", "The cat sat."): 0.9,  # one-sentence grounding: the pair's own score
         ("The cat sat on the mat.", "The dog slept."): 0.2, ("The dog slept.", "The dog slept."): 0.8,
         ("The cat sat on the mat.", "A cat barked."): 0.3, ("The dog slept.", "A cat barked."): 0.1}


def test_a_grounding_longer_than_a_sentence_is_scored_as_a_document():
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda pairs: [CELLS[p] for p in pairs])
    rows = [TrueRow("The cat sat on the mat.", "The cat sat.", 1, ""),
            TrueRow(GROUNDING_2, "The dog slept. A cat barked.", 0, "")]
    # row 2, as SummaC-ZS: "The dog slept." best block 0.8, "A cat barked." best block 0.3: mean 0.55
    assert model_scores(rows, scorer) == ([0.9, 0.55], [False, True])
    report = evaluate_true({"q2.csv": rows}, {"model": lambda rs: model_scores(rs, scorer)[0]}, resamples=10)
    assert report["files"]["q2.csv"]["scorers"]["model"] == {"roc_auc": 100.0, "interval": [100.0, 100.0],
                                                             "unscorable": 0}
    assert report["files"]["q2.csv"]["set"] == "Q2" and report["paper"] == PAPER_TABLE_1


def test_evaluate_true_beside_overlap_and_the_paper_writes_the_report_and_the_card(tiny_encoder, tmp_path, capsys):
    model = tiny_pair_model(tmp_path, tiny_encoder, three_way=True)
    q2 = write_csv(tmp_path / "q2.csv", [["the man likes a park", "a man likes a park", "1"],
                                         ["the man likes a park", "a dog sees a cat", "0"],
                                         ["the dog sees a park. the man likes a cat.", "a man likes a cat", "1"],
                                         ["a woman sees a dog", "the cat chases a man", "0"]])
    assert main(["evaluate", str(model), "--benchmark", "true", str(q2), "--score", "e-c"]) == 0
    out = capsys.readouterr().out
    assert "| all three methods (paper) | 89.4 |" in out and "| base NLI (DeBERTa) (paper) | 79.8 |" in out
    report = json.loads((model / "eval" / "benchmark-true.q2-e-c-mc0-seed0.json").read_text())
    entry = report["files"][str(q2)]
    assert list(entry["scorers"]) == ["entailgen model", UNIGRAM] and entry["documents"] == 1
    # overlap: the consistent responses' content words are all in their groundings (1.0), the others' none (0.0)
    assert entry["scorers"][UNIGRAM]["roc_auc"] == 100.0
    assert report["model"]["score_mode"] == {"score": "e-c", "mc_dropout": 0, "seed": 0}
    card = (model / "README.md").read_text()
    assert "## The TRUE benchmark (ROC AUC; With a Little Push, Table 1) (score e-c)" in card
    # another file, scored the plain way: its own report beside q2's, and both in the card
    begin = write_csv(tmp_path / "begin_dev.csv", [["a woman sees a dog", "a woman sees a dog", "1"],
                                                   ["a woman sees a dog", "the cat chases a man", "0"]])
    assert main(["evaluate", str(model), "--benchmark", "true", str(begin)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in (model / "eval").iterdir()) == ["benchmark-true.begin_dev.json",
                                                                  "benchmark-true.q2-e-c-mc0-seed0.json"]
    card = (model / "README.md").read_text()
    assert card.count("## The TRUE benchmark") == 2
    assert f"Scored on `{q2}`." in card and f"Scored on `{begin}`." in card
    # a q2.csv of another folder: its own report beside the first (named by its path's digest), which is kept
    (tmp_path / "other").mkdir()
    other = write_csv(tmp_path / "other" / "q2.csv", [["a woman sees a dog", "the cat chases a man", "1"],
                                                      ["a woman sees a dog", "a woman sees a dog", "0"]])
    first_name = "benchmark-true.q2-e-c-mc0-seed0.json"
    for path in (other, q2, other):  # scored again, each replaces its own report only
        assert main(["evaluate", str(model), "--benchmark", "true", str(path), "--score", "e-c"]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (model / "eval").iterdir())
    assert len(names) == 3 and names[0] == "benchmark-true.begin_dev.json" and names[2] == first_name, names
    assert re.fullmatch(r"benchmark-true\.q2-at-[0-9a-f]{8}-e-c-mc0-seed0\.json", names[1]), names
    assert json.loads((model / "eval" / names[1]).read_text())["model"]["files"] == [str(other)]
    assert json.loads((model / "eval" / first_name).read_text())["model"]["files"] == [str(q2)]
    card = (model / "README.md").read_text()
    assert card.count("## The TRUE benchmark") == 3 and f"Scored on `{other}`." in card
    bad = write_csv(tmp_path / "bad.csv", [["A", "B", "1"]], "knowledge,response,label")
    for argv, message in [([str(q2), str(bad)], f"{bad}: no column grounding, generated_text (TRUE's layout"),
                          ([], "--benchmark true needs TRUE's CSV files"),
                          ([str(q2), str(tmp_path / "." / "q2.csv")],
                           f"--benchmark true: {tmp_path / '.' / 'q2.csv'} is given twice (each file is one column"),
                          ([str(q2), "--conv", str(tmp_path)], "are for --benchmark summac")]:
        assert main(["evaluate", str(model), "--benchmark", "true", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_a_row_given_twice_counts_once_and_one_labelled_both_ways_is_refused(tmp_path):
    from entailgen.training.benchmarks.true import column_names, distinct_true, format_true

    header = "grounding,generated_text,label,system"
    rows = [["A cat sat.", "The cat sat.", "1", "a"], ["A cat sat.", "No.", "0", "a"],
            ["A cat sat.", "The cat sat.", "1", "a"],  # a copy: counted once
            ["A cat sat.", "The cat sat.", "0", "b"]]  # another system's same response: its own annotation, kept
    path = write_csv(tmp_path / "q2.csv", rows, header)
    kept, left_out = distinct_true(read_true(str(path)))
    assert [r.where for r in kept] == [f"{path} line {n}" for n in (2, 3, 5)] and left_out == 1
    write_csv(path, rows[:2] + [["A cat sat.", "The cat sat.", "0", "a"]], header)
    with pytest.raises(BenchmarkError, match=f"^{path} line 2 and {path} line 4: the same grounding and response "
                                             "labelled 1 and 0; keep the right one$"):
        distinct_true(read_true(str(path)))
    # a BOM is read past; two files of one name are told apart by their folders, in the table and the notes
    (tmp_path / "dev").mkdir(), (tmp_path / "test").mkdir()
    dev, test = tmp_path / "dev" / "q2.csv", tmp_path / "test" / "q2.csv"
    for p in (dev, test):
        write_csv(p, rows[:2])
        p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    assert [r.grounding for r in read_true(str(dev))] == ["A cat sat.", "A cat sat."]
    assert column_names([str(dev), str(test), str(path)]) == ["dev/q2.csv", "test/q2.csv", f"{tmp_path.name}/q2.csv"]
    report = evaluate_true({str(dev): read_true(str(dev)), str(test): read_true(str(test))},
                           {UNIGRAM: lambda rs: [1.0, 0.0]}, resamples=3, duplicates={str(test): 2})
    printed = format_true(report)
    assert "| scorer | Q2 (dev/q2.csv, 2 rows) | Q2 (test/q2.csv, 2 rows) |" in printed
    assert "test/q2.csv: 1 consistent + 1 inconsistent rows; 2 rows given twice, scored once" in printed
