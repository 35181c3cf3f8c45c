"""Sentiment (UCI files, text,label CSV) and NLI (SNLI/MNLI/ANLI) readers."""
from pathlib import Path

import entailgen
from entailgen.schemas.sources import NliPair, Review
from entailgen.transforms.io.base import ReaderConfig
from entailgen.transforms.io.nli import read_nli_jsonl
from entailgen.transforms.io.sentiment import read_sentiment_csv, read_sentiment_uci

SAMPLES = Path(entailgen.__file__).parent / "samples"


def test_uci_item_comes_from_the_file_name():
    line = [b"Works exactly as described.\t1\n"]
    assert next(read_sentiment_uci(line, "amazon_cells_labelled.txt")) == Review(
        "amazon_cells_labelled.txt:1", "amazon_cells_labelled.txt", "Works exactly as described.", 1, "product")
    assert next(read_sentiment_uci(line, "imdb_labelled.txt")).item == "movie"
    assert next(read_sentiment_uci(line, "yelp_labelled.txt")).item == "restaurant"
    assert next(read_sentiment_uci(line, "reviews.txt", ReaderConfig(default_item="hotel"))).item == "hotel"


def test_uci_imdb_trailing_spaces_and_tab_in_sentence():
    first, second, bad = read_sentiment_uci([b"A fine film.  \t0\n", b"Tab\there\t1\n", b"Meh.\t2\n"],
                                            "imdb_labelled.txt")
    assert (first.text, first.label) == ("A fine film.", 0)
    assert (second.text, second.label) == ("Tab\there", 1)  # the label is the last column
    assert (bad.error_type, bad.message) == ("BadLabel", "label '2' is not 0/1 (or negative/positive)")


def test_uci_samples_are_balanced():
    for name in ("amazon_cells_labelled.txt", "imdb_labelled.txt", "yelp_labelled.txt"):
        with open(SAMPLES / name, "rb") as f:
            labels = [r.label for r in read_sentiment_uci(f, name)]
        assert (len(labels), sum(labels)) == (20, 10), name


def test_sentiment_csv_with_and_without_header():
    rows = [b"text,label,item\n", b'"Clean room, friendly staff.",1,hotel\n', b"Too loud.,negative,\n"]
    assert list(read_sentiment_csv(rows, "s.csv")) == [
        Review("s.csv:2", "s.csv", "Clean room, friendly staff.", 1, "hotel"),
        Review("s.csv:3", "s.csv", "Too loud.", 0, "product")]  # empty item: the configured default
    (row,) = read_sentiment_csv([b"Great.,1\n"], "s.csv")  # no header: text,label[,item] positions
    assert row == Review("s.csv:1", "s.csv", "Great.", 1, "product")
    (swapped,) = read_sentiment_csv([b"label,text\n", b"1,Great.\n"], "s.csv")
    assert (swapped.text, swapped.label) == ("Great.", 1)


def test_snli_line():
    line = (b'{"annotator_labels": ["neutral"], "captionID": "3416050480.jpg#4", "gold_label": "neutral", '
            b'"pairID": "3416050480.jpg#4r1n", "sentence1": "A person on a horse jumps over a broken down airplane.", '
            b'"sentence2": "A person is training his horse for a competition."}\n')
    assert list(read_nli_jsonl([line], "snli.jsonl")) == [NliPair(
        "snli.jsonl:1", "snli.jsonl", "A person on a horse jumps over a broken down airplane.",
        "A person is training his horse for a competition.", "neutral", "3416050480.jpg#4r1n")]


def test_anli_and_hugging_face_labels():
    anli, hf, dash, unknown = read_nli_jsonl([
        b'{"uid": "a1", "context": "Oslo is the capital of Norway.", "hypothesis": "Oslo is in Sweden.", "label": "c"}',
        b'{"premise": "A dog runs.", "hypothesis": "A dog moves.", "label": 0}',
        b'{"sentence1": "A.", "sentence2": "B.", "gold_label": "-"}',
        b'{"sentence1": "A.", "sentence2": "B.", "gold_label": "maybe"}'], "n.jsonl")
    assert (anli.premise, anli.label, anli.dataset_id) == ("Oslo is the capital of Norway.", "contradiction", "a1")
    assert (hf.label, hf.dataset_id) == ("entailment", None)
    assert (dash.error_type, dash.source_id) == ("BadLabel", "n.jsonl:3") and "disagreed" in dash.message
    assert unknown.error_type == "BadLabel" and "entailment/neutral/contradiction" in unknown.message


def test_nli_samples():
    with open(SAMPLES / "nli.jsonl", "rb") as f:
        snli = list(read_nli_jsonl(f, "nli.jsonl"))
    with open(SAMPLES / "anli.jsonl", "rb") as f:
        anli = list(read_nli_jsonl(f, "anli.jsonl"))
    assert {p.label for p in snli[:-1]} == {"entailment", "neutral", "contradiction"}
    assert (snli[-1].source_id, snli[-1].error_type) == ("nli.jsonl:30", "BadLabel")  # SNLI's '-' gold label
    assert len(anli) == 10 and all(isinstance(p, NliPair) for p in anli)
