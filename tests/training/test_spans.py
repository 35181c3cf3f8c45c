"""The XSumFaith span benchmark (training.benchmarks.spans): the CSV reader's majority rule on a hand-made file of 3
annotators with overlapping spans, the document cut, the overlap baselines and the word-level figures worked by hand."""
import codecs
import csv
import gzip
import json

import pytest

from entailgen.training.benchmarks.files import BenchmarkError
from entailgen.training.benchmarks.spans import (ABSENT, EXTRINSIC, INTRINSIC, OVERLAP_MIX, TEST, VAL, Placement,
                                                 SpanSummary, absent, check_cuts, cut_of, evaluate_spans, format_spans,
                                                 locate_span, overlap_features, overlap_scorers, read_articles,
                                                 read_spans, with_articles, with_overlap)

HEADER = ["bbcid", "system", "summary", "hallucination_type", "hallucinated_span", "hallucinated_span_start",
          "hallucinated_span_end", "worker_id"]
RATES = "the uk\\'s bank of anna raised rates."  # as the CSV writes it: \' for an apostrophe
DOG = "a cat saw the dog."


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


ROWS = [  # bbcid 1: 'the uk's bank of anna raised rates.' (words: the uk's bank of anna raised rates.)
    ["1", "S1", RATES, "extrinsic", "bank of anna", "11", "22", "wid_0"],  # offsets of the escaped text: found by text
    ["1", "S1", RATES, "extrinsic", "anna raised", "18", "29", "wid_1"],
    ["1", "S1", RATES, "intrinsic", "uk\\'s", "5", "9", "wid_2"],
    ["1", "S1", RATES, "extrinsic", "raised rates", "23", "34", "wid_2"],
    ["2", "S1", DOG, "NULL", "NULL", "-1", "-1", "wid_0"],  # wid_0 marked nothing
    ["2", "S1", DOG, "extrinsic", "\\ndog", "14", "18", "wid_1"],  # a literal \n before the span
    ["2", "S1", DOG, "extrinsic", "the dog", "11", "18", "wid_2"],
]


def test_a_word_is_unsupported_when_two_of_its_three_annotators_marked_it(tmp_path):
    """bank, of: wid_0 alone; anna: wid_0 and wid_1; raised: wid_1 and wid_2; uk's, rates.: wid_2 alone. dog.:
    wid_1 and wid_2; the: wid_2 alone."""
    summaries, placement = read_spans(str(write_csv(tmp_path / "spans.csv", ROWS)))
    assert placement == Placement(by_offsets=0, nowhere_lines=(), left_out=0)
    rates, dog = summaries
    assert rates.summary == "the uk's bank of anna raised rates."
    assert [w for _, _, w in rates.words] == ["the", "uk's", "bank", "of", "anna", "raised", "rates."]
    assert rates.labels == (0, 0, 0, 0, 1, 1, 0)
    assert dog.labels == (0, 0, 0, 0, 1) and dog.annotators == 3
    assert (rates.cut, dog.cut) == (TEST, VAL)  # sha256 of the bbcid: '1' odd first byte, '2' even


def test_a_span_is_found_by_its_text_nearest_its_offset_else_by_its_offsets():
    assert locate_span("the cat and the dog", "the", 13, 15) == ((12, 15), True)  # the second 'the', 1-based 13
    assert locate_span("the cat and the dog", "the", 2, 4) == ((0, 3), True)
    assert locate_span("the cat and the dog", "THE  dog", 1, 9) == ((12, 19), True)  # case and spacing read loosely
    assert locate_span("the cat", "a cow", 5, 7) == ((4, 7), False)


def test_a_span_placed_nowhere_leaves_its_summary_out_counted_and_said(tmp_path):
    """bbcid 3's three annotators each marked 'zebra', absent from its summary, at offsets past its end (40-45 of 18
    characters): no word can carry the marks, so the summary is left out and the three lines named; bbcid 2's span
    'a bird' (absent) at offsets 1-5 covers 'a cat' and is placed by them, counted."""
    rows = [*ROWS, *(["3", "S1", DOG, "extrinsic", "zebra", "40", "45", w] for w in ("wid_0", "wid_1", "wid_2")),
            ["4", "S1", DOG, "extrinsic", "a bird", "1", "5", "wid_0"], ["4", "S1", DOG, "NULL", "NULL", "-1", "-1",
                                                                        "wid_1"]]
    summaries, placement = read_spans(str(write_csv(tmp_path / "spans.csv", rows)))
    assert [s.bbcid for s in summaries] == ["1", "2", "4"]
    assert placement == Placement(by_offsets=1, nowhere_lines=(9, 10, 11), left_out=1)
    assert summaries[2].labels == (0, 0, 0, 0, 0)  # one annotator of two marked 'a cat': no majority
    summary = SpanSummary("2", "S", "w w", ((0, 1, "w"), (2, 3, "w")), (1, 0), 3, "doc")
    test = SpanSummary("1", "S", "w w", ((0, 1, "w"), (2, 3, "w")), (0, 1), 3, "doc")
    report = evaluate_spans([summary, test], {ABSENT: [[1.0, 0.0], [0.0, 1.0]]}, resamples=5, placement=placement)
    assert report["spans_placed_nowhere"] == {"spans": 3, "lines": [9, 10, 11], "summaries_left_out": 1}
    assert next(line for line in format_spans(report).splitlines() if line.startswith("val: ")).endswith(
        "1 spans placed by their offsets (text not found); 3 spans placed nowhere (text not found, offsets past the "
        "summary; lines 9, 10, 11): 1 summaries left out")


def test_a_header_alone_and_a_cut_without_both_labels_are_refused_before_scoring(tmp_path):
    with pytest.raises(BenchmarkError, match=r"header\.csv: no annotation row under its header$"):
        read_spans(str(write_csv(tmp_path / "header.csv", [])))
    summaries, _ = read_spans(str(write_csv(tmp_path / "spans.csv", ROWS[:4])))  # bbcid 1 alone: a test document
    with pytest.raises(BenchmarkError, match=r"^the val cut has 0 documents, 0 words \(0 unsupported\), not words of "
                                             "both labels"):
        check_cuts(summaries)


@pytest.mark.parametrize("name, encode", [
    ("spans.csv.gz", lambda text: gzip.compress(text.encode("utf-8"))),
    ("spans.csv", lambda text: text.encode("utf-16")),  # a BOM, as a spreadsheet writes UTF-16
    ("spans.csv", lambda text: codecs.BOM_UTF8 + text.encode("utf-8")),
])
def test_annotations_and_articles_are_read_gzipped_or_in_the_encoding_their_byte_order_mark_names(tmp_path, name,
                                                                                                 encode):
    plain = write_csv(tmp_path / "plain.csv", ROWS)
    (tmp_path / name).write_bytes(encode(plain.read_text(encoding="utf-8")))
    assert read_spans(str(tmp_path / name)) == read_spans(str(plain))
    articles = json.dumps({"bbcid": 2, "document": "A cat saw a bird."}) + "\n"
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(articles.encode("utf-8")))
    (tmp_path / "a16.jsonl").write_bytes(articles.encode("utf-16"))
    assert read_articles(str(tmp_path / "a.jsonl.gz")) == read_articles(str(tmp_path / "a16.jsonl")) == {
        "2": "A cat saw a bird."}


def test_gzip_bytes_under_a_plain_name_and_bytes_of_no_encoding_are_refused_in_one_line(tmp_path):
    (tmp_path / "spans.csv").write_bytes(gzip.compress(b"bbcid\n"))
    with pytest.raises(BenchmarkError, match=r"^cannot read span annotations .*spans\.csv: .*spans\.csv is "
                                             r"gzip-compressed but its name does not end in \.gz; rename it"):
        read_spans(str(tmp_path / "spans.csv"))
    (tmp_path / "a.jsonl").write_bytes(b'{"bbcid": 1, "document": "caf\xe9"}\n')
    with pytest.raises(BenchmarkError, match=r"^cannot read articles .*a\.jsonl: not text in its encoding \(UTF-8 "
                                             r"unless a byte-order mark names another\): invalid continuation byte at "
                                             r"byte 29$"):  # 29 bytes before the é
        read_articles(str(tmp_path / "a.jsonl"))


@pytest.mark.parametrize("rows, message", [
    ([["1", "S1", DOG, "extrinsic", "dog", "14", "18", "wid_0"]], r"1 S1 has 1 annotator\(s\); the majority rule needs 2"),
    ([["1", "S1", DOG, "extrinsic", "dog", "x", "18", "wid_0"]], "line 2: span offsets must be whole numbers"),
    ([["1", "S1", DOG, "NULL", "NULL", "-1", "-1", "wid_0"], ["1", "S1", "other", "NULL", "NULL", "-1", "-1", "wid_1"]],
     "line 3: summary of 1 S1 differs from line 2's"),
])
def test_bad_annotations_are_refused_in_one_line(tmp_path, rows, message):
    with pytest.raises(BenchmarkError, match=message):
        read_spans(str(write_csv(tmp_path / "bad.csv", rows)))


def test_a_file_without_the_columns_and_bad_articles_are_refused(tmp_path):
    (tmp_path / "x.csv").write_text("bbcid,summary\n1,a\n")
    with pytest.raises(BenchmarkError, match="no column system, hallucination_type, hallucinated_span"):
        read_spans(str(tmp_path / "x.csv"))
    (tmp_path / "a.jsonl").write_text(json.dumps({"bbcid": 1, "document": "A."}) + "\n"
                                      + json.dumps({"bbcid": "1", "document": "B."}) + "\n")
    with pytest.raises(BenchmarkError, match="line 2: bbcid 1 given another article before"):
        read_articles(str(tmp_path / "a.jsonl"))
    (tmp_path / "b.jsonl").write_text('{"bbcid": 2}\n')
    with pytest.raises(BenchmarkError, match="line 1: an article is"):
        read_articles(str(tmp_path / "b.jsonl"))


def test_summaries_without_their_article_are_left_out_and_counted(tmp_path):
    summaries, _ = read_spans(str(write_csv(tmp_path / "spans.csv", ROWS)))
    (tmp_path / "a.jsonl").write_text(json.dumps({"bbcid": 2, "document": "A cat saw a bird."}) + "\n")
    kept, left = with_articles(summaries, read_articles(str(tmp_path / "a.jsonl")))
    assert [s.bbcid for s in kept] == ["2"] and left == 1 and kept[0].document == "A cat saw a bird."


def test_the_overlap_features_worked_by_hand():
    """'a cat saw the dog.' against 'A cat saw a bird.': 'the' and 'dog.' absent; neighbours' share; 2 of 5 words
    absent; unigram overlap of the content words {cat, saw, dog}: 2 of 3."""
    s = SpanSummary("2", "S1", DOG, ((0, 1, "a"), (2, 5, "cat"), (6, 9, "saw"), (10, 13, "the"), (14, 18, "dog.")),
                    (0, 0, 0, 0, 1), 3, "A cat saw a bird.")
    assert absent("dog.", {"dog"}) == 0.0 and absent("...", set()) == 0.0 and absent("uk's", {"uk"}) == 1.0
    (features,) = overlap_features([s])
    assert [f[:3] for f in features] == [(0.0, 0.0, 0.4), (0.0, 0.0, 0.4), (0.0, 0.5, 0.4), (1.0, 0.5, 0.4),
                                         (1.0, 1.0, 0.4)]
    assert features[0][3] == pytest.approx(1 / 3)


def test_word_level_figures_on_test_with_the_threshold_from_val():
    """Val (bbcid 2, 3) and test (1, 4) documents: 'perfect' ranks every test word right (ROC AUC 100 in every
    draw), 'flat' ties them all (50), so the gap is 50 points in every draw; perfect's val threshold 0.5 splits the
    test words exactly (balanced accuracy 100)."""
    def summary(bbcid, labels):
        return SpanSummary(bbcid, "S", " ".join("w" * len(labels)), tuple((i, i + 1, "w") for i in range(len(labels))),
                           tuple(labels), 3, "doc")
    summaries = [summary("2", [1, 0]), summary("3", [0, 1, 0]), summary("1", [1, 0, 0]), summary("4", [0, 1])]
    assert [s.cut for s in summaries] == [VAL, VAL, TEST, TEST]
    perfect = [[float(y) for y in s.labels] for s in summaries]
    flat = [[0.5] * len(s.labels) for s in summaries]
    report = evaluate_spans(summaries, {"perfect": perfect, ABSENT: flat}, resamples=50,
                            compare=[("perfect", [ABSENT])])
    assert report["scorers"]["perfect"] == {"val_roc_auc": 100.0, "threshold": 0.5, "roc_auc": [100.0, 100.0, 100.0],
                                            "balanced_accuracy": [100.0, 100.0, 100.0]}
    assert report["scorers"][ABSENT]["roc_auc"] == [50.0, 50.0, 50.0]
    assert report["gaps"] == [{"model": "perfect", "baseline": ABSENT, "roc_auc": [50.0, 50.0, 50.0]}]
    assert report["documents"] == {VAL: 2, TEST: 2} and report["unsupported_words"] == {VAL: 2, TEST: 2}
    assert cut_of("2") == VAL


def test_the_models_words_mixed_with_the_overlap_features_on_val():
    """Every word of the four summaries is in its document, so the overlap features are all 0 and say nothing; the
    model's words rank each unsupported one first. Fit on val, the mix keeps the model's order: test ROC AUC 100
    (the overlap mix alone ties every word: 50)."""
    def summary(bbcid, labels):
        words = tuple((2 * i, 2 * i + 1, "w") for i in range(len(labels)))
        return SpanSummary(bbcid, "S", " ".join("w" * len(labels)), words, tuple(labels), 3, "w w w")
    summaries = [summary("2", [1, 0]), summary("3", [0, 1, 0]), summary("1", [1, 0, 0]), summary("4", [0, 1])]
    model = [[0.2 + 0.7 * y for y in s.labels] for s in summaries]
    scores = {"mixed": with_overlap(summaries, model), OVERLAP_MIX: overlap_scorers(summaries)[OVERLAP_MIX]}
    report = evaluate_spans(summaries, scores, resamples=20, compare=[("mixed", [OVERLAP_MIX])])
    assert report["scorers"]["mixed"]["roc_auc"] == [100.0, 100.0, 100.0]
    assert report["scorers"][OVERLAP_MIX]["roc_auc"] == [50.0, 50.0, 50.0]
    assert report["gaps"][0]["roc_auc"] == [50.0, 50.0, 50.0]


def test_evaluate_refuses_a_header_alone_and_a_cut_without_both_labels_before_any_model_loads(tmp_path, capsys):
    """No model dir at all: the refusals come from the files, before the model would load (and 22 s of scoring)."""
    from entailgen.runners.cli import main

    (tmp_path / "a.jsonl").write_text(json.dumps({"bbcid": 1, "document": "The uk's bank raised rates."}) + "\n")
    for rows, said in (([], f"{tmp_path / 'spans.csv'}: no annotation row under its header"),
                       (ROWS[:4], "the val cut has 0 documents, 0 words (0 unsupported), not words of both labels")):
        spans = str(write_csv(tmp_path / "spans.csv", rows))
        argv = ["evaluate", str(tmp_path / "no-model"), "--benchmark", "spans", spans, "--articles",
                str(tmp_path / "a.jsonl")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"entailgen: error: {said}")


LEEDS = "leeds beat hull at home on friday."


def test_a_marked_words_kind_is_the_type_most_of_its_markers_gave(tmp_path):
    """words: leeds beat hull at home on friday. wid_0 marks 'leeds beat hull' intrinsic and 'on friday' extrinsic,
    wid_1 'beat hull' intrinsic and 'friday' extrinsic, wid_2 'hull at home' extrinsic and 'on friday' intrinsic.
    Unsupported (2 of 3): beat (2 intrinsic), hull (2 intrinsic, 1 extrinsic), on (1 each: a tie, neither), friday
    (2 extrinsic, 1 intrinsic); leeds, at, home have one marker each: supported, no kind."""
    rows = [["2", "S1", LEEDS, "intrinsic", "leeds beat hull", "1", "15", "wid_0"],
            ["2", "S1", LEEDS, "extrinsic", "on friday", "27", "35", "wid_0"],
            ["2", "S1", LEEDS, "Intrinsic", "beat hull", "7", "15", "wid_1"],  # the type read case-blind
            ["2", "S1", LEEDS, "extrinsic", "friday", "30", "35", "wid_1"],
            ["2", "S1", LEEDS, "extrinsic", "hull at home", "12", "23", "wid_2"],
            ["2", "S1", LEEDS, "intrinsic", "on friday", "27", "35", "wid_2"]]
    (s,), _ = read_spans(str(write_csv(tmp_path / "spans.csv", rows)))
    assert s.labels == (0, 1, 1, 0, 0, 1, 1)
    assert s.types == ("", INTRINSIC, INTRINSIC, "", "", "", EXTRINSIC)


def kinds_summaries():
    """Val: bbcid 2 (an intrinsic word), 3 (an extrinsic word); test: 1 (an intrinsic and an extrinsic word), 4 (an
    extrinsic word and one of no kind)."""
    def summary(bbcid, labels, types):
        words = tuple((2 * i, 2 * i + 1, "w") for i in range(len(labels)))
        return SpanSummary(bbcid, "S", " ".join("w" * len(labels)), words, tuple(labels), 3, "doc", tuple(types))
    return [summary("2", [1, 0], [INTRINSIC, ""]), summary("3", [0, 1, 0], ["", EXTRINSIC, ""]),
            summary("1", [1, 1, 0, 0], [INTRINSIC, EXTRINSIC, "", ""]),
            summary("4", [1, 0, 0, 1], [EXTRINSIC, "", "", ""])]


def test_each_kinds_roc_auc_is_on_every_supported_word_and_that_kinds_unsupported_ones():
    """Test negatives (supported words) score 0.1, 0.5, 0.3, 0.4. Intrinsic: its one word (0.9) is above all 4: ROC
    AUC 100 in every draw holding it, 50 points over the flat overlap mix in every draw. Extrinsic: 0.2 is above 1 of
    4, 0.6 above 4 of 4: 5 / 8 = 62.5 (draws of document 1 twice: 50, of 4 twice: 100). Overall, with the word of no
    kind (0.45, above 3): (4 + 1 + 4 + 3) / 16 = 75."""
    summaries = kinds_summaries()
    assert [s.cut for s in summaries] == [VAL, VAL, TEST, TEST]
    model = [[0.8, 0.3], [0.2, 0.7, 0.1], [0.9, 0.2, 0.1, 0.5], [0.6, 0.3, 0.4, 0.45]]
    flat = [[0.5] * len(s.labels) for s in summaries]
    report = evaluate_spans(summaries, {"model": model, OVERLAP_MIX: flat}, resamples=200,
                            compare=[("model", [OVERLAP_MIX])])
    assert report["scorers"]["model"]["roc_auc"][0] == 75.0
    intrinsic, extrinsic = report["kinds"][INTRINSIC], report["kinds"][EXTRINSIC]
    assert intrinsic["words"] == {VAL: 4, TEST: 5} and intrinsic["unsupported_words"] == {VAL: 1, TEST: 1}
    assert extrinsic["words"] == {VAL: 4, TEST: 6} and extrinsic["unsupported_words"] == {VAL: 1, TEST: 2}
    assert intrinsic["scorers"]["model"] == {"val_roc_auc": 100.0, "roc_auc": [100.0, 100.0, 100.0]}
    assert intrinsic["scorers"][OVERLAP_MIX]["roc_auc"] == [50.0, 50.0, 50.0]
    assert intrinsic["gaps"] == [{"model": "model", "baseline": OVERLAP_MIX, "roc_auc": [50.0, 50.0, 50.0]}]
    auc, low, high = extrinsic["scorers"]["model"]["roc_auc"]
    assert auc == 62.5 and extrinsic["scorers"]["model"]["val_roc_auc"] == 100.0 and low == 50.0 and high == 100.0
    assert extrinsic["gaps"][0]["roc_auc"] == [12.5, 0.0, 50.0]
    printed = format_spans(report).splitlines()
    assert "| model | 100.0 [100.0, 100.0] | 100.0 | 62.5 [50.0, 100.0] | 100.0 |" in printed
    assert "intrinsic: model minus overlap mix (weights fit on val): 50.0 ROC AUC points [50.0, 50.0]" in printed


def test_on_val_alone_no_test_summary_is_needed_and_the_figures_are_val_words():
    """The pilot's report: only the val summaries given (a test cut of none is no error); every figure is on the val
    words: the model ranks them all right (100), the intrinsic kind's one word too."""
    summaries = [s for s in kinds_summaries() if s.cut == VAL]
    model = [[0.8, 0.3], [0.2, 0.7, 0.1]]
    report = evaluate_spans(summaries, {"model": model, OVERLAP_MIX: [[0.5, 0.5], [0.5, 0.5, 0.5]]}, resamples=20,
                            compare=[("model", [OVERLAP_MIX])], on=VAL)
    assert report["cut"] == VAL and report["summaries"] == {VAL: 2}
    assert report["scorers"]["model"]["roc_auc"] == [100.0, 100.0, 100.0]
    assert report["kinds"][INTRINSIC]["words"] == {VAL: 4}
    assert report["kinds"][INTRINSIC]["scorers"]["model"]["roc_auc"] == [100.0, 100.0, 100.0]
    assert format_spans(report).startswith("XSumFaith spans (word level, val documents; threshold and mix weights "
                                           "chosen on val; a pilot: val alone, no test word scored):")


def test_val_only_scores_no_test_summary_and_is_refused_outside_spans(tmp_path, capsys):
    """--val-only: a file of val documents alone passes the cut check and goes on to load the model (here none:
    its one-line refusal), where without it the empty test cut is refused; --benchmark summac refuses the switch."""
    from entailgen.runners.cli import main

    (tmp_path / "a.jsonl").write_text(json.dumps({"bbcid": 2, "document": "A cat saw a bird."}) + "\n")
    spans = str(write_csv(tmp_path / "spans.csv", ROWS[4:]))  # bbcid 2 alone: a val document
    argv = ["evaluate", str(tmp_path / "no-model"), "--benchmark", "spans", spans, "--articles",
            str(tmp_path / "a.jsonl")]
    assert main(argv) == 2
    assert "the test cut has 0 documents" in capsys.readouterr().err
    assert main([*argv, "--val-only"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cut has" not in err and "no-model" in err
    assert main(["evaluate", "m", "--benchmark", "summac", spans, "--val-only"]) == 2
    assert capsys.readouterr().err.startswith("entailgen: error: --val-only is for --benchmark spans")
