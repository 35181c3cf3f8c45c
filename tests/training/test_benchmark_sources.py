"""The benchmarks' converters on hand-written source rows (once bench/q2.py, begin.py, frank.py, polytope.py and
xsumfaith.py): the way Q2's label columns point is read off the per-system files, BEGIN's labels are TRUE's, and a
file that says otherwise is refused in one line."""
import csv
import json
from pathlib import Path

import pytest

from benchmark_sources import K1, K2, K3, workbook
from entailgen.training.benchmarks.fetch import FetchError
from entailgen.training.benchmarks.sources import summac, true


def write(path: Path, header, rows, delimiter=","):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


@pytest.fixture
def q2_files(tmp_path):
    # the cross annotation flags a hallucination with 1: its per-system files must say so
    cross = write(tmp_path / "cross_annotation.csv",
                  ["knowledge", "dodeca_response", "dodeca_label", "memnet_response", "memnet_label"],
                  [[K1, "It began in New Orleans.", "0", "It began in Paris.", "1"],
                   [K2, "Lyon is the capital.", "1", "It is Paris.", "0"],
                   [K3, "They sleep a lot.", "0", "They never sleep.", "1"]])
    files = {"dodeca_consistent.csv": [[K1, "It began in  New Orleans."]],  # whitespace aside, the same response
             "dodeca_inconsistent.csv": [[K2, "Lyon is the capital."]],
             "memnet_consistent.csv": [[K2, "It is Paris."], ["Not in the cross annotation.", "Nor this."]],
             "memnet_inconsistent.csv": [[K1, "It began in Paris."]]}
    return cross, {name: write(tmp_path / name, ["knowledge", "response"], rows) for name, rows in files.items()}


def test_q2_labels_point_the_way_the_per_system_files_say(q2_files):
    cross, files = q2_files
    rows, values, told = true.q2_rows(cross, list(files.values()))
    assert values == {"0": 1, "1": 0} and told == "4 of the per-system files' 5 responses found"
    assert [(r["grounding"], r["system"], r["label"], r["turn"]) for r in rows] == [
        (K1, "dodeca", 1, 1), (K1, "memnet", 0, 1), (K2, "dodeca", 0, 2), (K2, "memnet", 1, 2), (K3, "dodeca", 1, 3),
        (K3, "memnet", 0, 3)]


def test_q2_refuses_files_that_do_not_point_one_way_and_a_missing_column(q2_files, tmp_path):
    cross, files = q2_files
    (tmp_path / "flipped").mkdir()
    flipped = write(tmp_path / "flipped" / "memnet_consistent.csv", ["knowledge", "response"],
                    [[K1, "It began in Paris."]])
    given = [files["dodeca_consistent.csv"], files["dodeca_inconsistent.csv"], flipped,
             files["memnet_inconsistent.csv"]]
    with pytest.raises(FetchError) as e:
        true.q2_rows(cross, given)
    assert str(e.value) == (f"{cross}: the label column does not point one way: the consistent files' responses "
                            "carry '0' 1, '1' 1, the inconsistent files' '1' 2 (want one value each, different)")
    bad = write(tmp_path / "bad.csv", ["turn", "dodeca_response"], [["1", "x"]])
    with pytest.raises(FetchError) as e:
        true.q2_rows(bad, [files["dodeca_consistent.csv"]])
    assert str(e.value) == f"{bad}: no column knowledge, dodeca_label (its header: turn, dodeca_response)"


def test_begin_fully_attributable_is_consistent_and_an_unknown_label_is_refused(tmp_path):
    tsv = write(tmp_path / "begin_dev.tsv", ["knowledge", "response", "begin_label"],
                [[K1, "It began in New Orleans.", "Fully attributable"], [K1, "I love jazz!", "Generic"],
                 [K2, "Paris, on the Loire.", "Not fully attributable"]], delimiter="\t")
    assert [(r["generated_text"], r["label"]) for r in true.begin_rows({"wow/begin_dev.tsv": tsv})] == [
        ("It began in New Orleans.", 1), ("I love jazz!", 0), ("Paris, on the Loire.", 0)]
    odd = write(tmp_path / "odd.tsv", ["knowledge", "response", "begin_label"], [[K1, "Hm.", "maybe"]], delimiter="\t")
    with pytest.raises(FetchError, match=rf"^{odd} line 2: label 'maybe' is neither consistent"):
        true.begin_rows({"a": tsv, "b": odd})


def test_frank_refuses_an_annotation_without_its_texts_or_with_an_unknown_split(tmp_path):
    texts = tmp_path / "benchmark_data.json"
    texts.write_text(json.dumps([{"hash": "h1", "model_name": "bart", "article": "A.", "summary": "S."}]))
    labels = tmp_path / "human_annotations.json"
    labels.write_text(json.dumps([{"hash": "h1", "model_name": "bart", "Factuality": 1.0, "split": "valid"},
                                  {"hash": "h2", "model_name": "bart", "Factuality": 1.0, "split": "test"}]))
    with pytest.raises(FetchError) as e:
        summac.frank_rows(str(texts), str(labels))
    assert str(e.value) == f"{labels} entry 2: no article or summary for ('h2', 'bart') in {texts}"
    labels.write_text(json.dumps([{"hash": "h1", "model_name": "bart", "Factuality": 1.0, "split": "train"}]))
    with pytest.raises(FetchError) as e:
        summac.frank_rows(str(texts), str(labels))
    assert str(e.value) == f"{labels} entry 1: split 'train', neither valid nor test"


def test_a_workbook_sheet_reads_as_openpyxl_reads_it(tmp_path):
    book = tmp_path / "book.xlsm"
    book.write_bytes(workbook({"Other": {1: ["x"]}, "Error Log": {1: ["ID", "Subtypes"], 3: [2.5, "Omission & more"]}},
                              shared=True))
    assert summac.sheet_rows(str(book), "Error Log") == [("ID", "Subtypes"), (None, None), (2.5, "Omission & more")]
    with pytest.raises(FetchError, match=r"no sheet 'Scores per segment' \(its sheets: Other, Error Log\)"):
        summac.sheet_rows(str(book), "Scores per segment")
    (tmp_path / "not.xlsm").write_text("not a zip")
    with pytest.raises(FetchError, match=r"cannot read .*not.xlsm as an Excel workbook"):
        summac.sheet_rows(str(tmp_path / "not.xlsm"), "Error Log")


@pytest.mark.parametrize("total, experts, label", [
    (15, None, 1), (14, None, 1),  # 5 5 4 at the least: two 5s
    (10, None, 0), (3, None, 0),  # 5 4 1 at the most with two 5s impossible: 5 5 1 is 11
    (11, None, None), (12, None, None), (13, None, None),  # 5 5 1 or 5 3 3; 5 5 2 or 4 4 4; 5 5 3 or 5 4 4
    (11, [5, 5, 1], 1), (13, [5, 4, 4], 0), (12, [4, 4, 4], 0)])
def test_summevals_label_is_summacs_most_experts_gave_5_told_by_the_mean_only_where_it_can(total, experts, label):
    assert summac.summeval_label(total / 3, experts) == label


def test_summevals_cut_is_the_rows_turn_in_summacs_17_rows_per_article():
    assert [summac.summeval_cut(0, s) for s in (0, 1, 15)] == ["val", "test", "test"]
    assert [summac.summeval_cut(1, s) for s in (0, 1, 15)] == ["test", "val", "val"]  # 17 + 1 = 18: even
    assert summac.summeval_cut(99, 15) == "val"  # row 1,698


def test_a_per_expert_row_that_is_not_its_summeval_row_is_refused_in_one_line(tmp_path):
    rows = tmp_path / "summeval.jsonl"
    rows.write_text("".join(json.dumps({"article_id": "A0", "summary_id": f"S{s}", "article": "Doc.",
                                        "summary": f"sum {s} .", "consistency": 4.0}) + "\n" for s in range(16)))
    experts = tmp_path / "summeval.json"
    experts.write_text(json.dumps({"summeval_0": {"claim": "sum 1 .", "annotations": [5, 5, 2]}}))
    with pytest.raises(FetchError, match=r"^.*summeval.json summeval_0: not the summary and scores of the SummEval "
                                         r"row it stands for \(article 0, system 0\)$"):
        summac.summeval_rows(str(rows), str(experts))
    experts.write_text(json.dumps({"summeval_0": {"claim": "SUM 0 .", "annotations": [5, 5, 2]}}))
    found, undecided = summac.summeval_rows(str(rows), str(experts))
    assert (found["summeval-A0-S0"]["label"], len(found), undecided) == (1, 1, 15)


def test_a_ppairs_file_out_of_order_or_without_a_field_is_refused_in_one_line(tmp_path):
    rows = [{"article_id": "A0", "summary_id": f"S{s}", "article": "Doc.", "summary": f"sum {s} .",
             "consistency": 5.0} for s in range(16)]
    path, experts = tmp_path / "summeval.jsonl", tmp_path / "summeval.json"
    experts.write_text("{}")
    rows[3]["summary_id"] = "S4"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(FetchError, match=r"summeval.jsonl line 4: A0 S4, not A0 S3 \(PPairS' file holds 16 systems "
                                         r"per article in order\)$"):
        summac.summeval_rows(str(path), str(experts))
    rows[3]["summary_id"] = "S3"
    del rows[5]["consistency"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(FetchError, match=r"summeval.jsonl line 6: no 'consistency' \(PPairS' rows have article_id, "
                                         r"summary_id, article, summary, consistency\)$"):
        summac.summeval_rows(str(path), str(experts))
    experts.write_text("[]")
    with pytest.raises(FetchError, match=r"summeval.json: not SummaC's dict layout \(id -> row\)$"):
        summac.summeval_experts(str(experts), rows)
