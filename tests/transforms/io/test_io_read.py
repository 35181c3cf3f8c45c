"""Format detection, read_file on any filesystem, texts_of, and the ReadInputs PTransform."""
import gzip
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

import entailgen
from entailgen.schemas.sources import FactualityAnnotation, NerSentence, NliPair, ParaphrasePair, Review, SourceText
from entailgen.transforms.io import FORMATS, ReaderConfig, ReadInputs, detect_format, detect_format_of, read_file, \
    texts_of

SAMPLES = Path(entailgen.__file__).parent / "samples"
CORRUPT = Path(__file__).parents[2] / "data" / "corrupt"

SAMPLE_FORMATS = {
    "paraphrase.tsv": "paraphrase-tsv", "paraphrase.jsonl": "paraphrase-jsonl", "text.txt": "text",
    "conll2003.txt": "conll2003", "gmb.csv": "gmb", "uds_factuality.json": "uds-json",
    "factuality.jsonl": "factuality-jsonl", "amazon_cells_labelled.txt": "sentiment-uci",
    "imdb_labelled.txt": "sentiment-uci", "yelp_labelled.txt": "sentiment-uci", "sentiment.csv": "sentiment-csv",
    "nli.jsonl": "nli-jsonl", "anli.jsonl": "nli-jsonl", "relation.txt": "text",
    "recast_kg_relations_data.json": "dnc-json", "documents.jsonl": "documents-jsonl",
}


def test_every_sample_is_detected_and_every_format_has_a_sample():
    assert {name: detect_format(str(SAMPLES / name)) for name in SAMPLE_FORMATS} == SAMPLE_FORMATS
    # text-jsonl and documents-text share their layout with another format: they are chosen by flag (or, for the
    # claims family, by its default `documents`, which tells JSON lines from text blocks itself); a finished dataset
    # is a folder a run writes, not a sample file (tests/pipelines/test_nli_dialogue_datasets.py reads one).
    assert set(SAMPLE_FORMATS.values()) == set(FORMATS) - {"text-jsonl", "documents", "documents-text",
                                                          "entailgen-dataset"}


@pytest.mark.parametrize("name, head, fmt", [
    ("train.jsonl.gz", b'{"text": "x"}', "text-jsonl"),
    ("mnli.json", b'{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"}', "nli-jsonl"),
    ("uds-ewt-sentences-dev-normalized.json", b'{"metadata": {"factuality": {"factu', "uds-json"),
    ("gs://bucket/eng.train.txt", b"EU NNP B-NP B-ORG", "conll2003"),
    ("eng.testa", b"-DOCSTART- -X- -X- O", "conll2003"),
    ("ner_dataset.csv", b"Sentence #,Word,POS,Tag", "gmb"),
    ("reviews.csv", b"text,label", "sentiment-csv"),
    ("para-nmt-50m.txt", b"x one .\th one .\t0.8", "paraphrase-tsv"),
    ("reviews.txt", b"Nice.\t1", "sentiment-uci"),
    ("sentences.txt", b"EU rejects German call", "text"),
])
def test_detect_format_of_name_and_first_line(name, head, fmt):
    assert detect_format_of(name, head) == fmt


@pytest.mark.parametrize("name, head, words", [
    ("data.parquet", b"PAR1", "--input-format"),
    ("rows.jsonl", b'{"foo": 1}', "predicate_index"),
    ("table.csv", b"a,b,c", "Sentence #"),
])
def test_unknown_formats_are_a_clear_error(name, head, words):
    with pytest.raises(ValueError, match=f"cannot tell the format of {name}") as err:
        detect_format_of(name, head)
    assert words in str(err.value)


def test_read_file_reads_compressed_files_and_names_the_source_by_basename(tmp_path):
    path = tmp_path / "reviews_imdb_labelled.txt.gz"
    path.write_bytes(gzip.compress(b"Loved it.\t1\nHated it.\t0\n"))
    assert list(read_file(str(path))) == [
        Review("reviews_imdb_labelled.txt.gz:1", "reviews_imdb_labelled.txt.gz", "Loved it.", 1, "movie"),
        Review("reviews_imdb_labelled.txt.gz:2", "reviews_imdb_labelled.txt.gz", "Hated it.", 0, "movie")]


def test_read_file_chunk_size_does_not_change_uds_records():
    path = str(CORRUPT / "corrupt_uds.json")
    assert list(read_file(path, "uds-json", ReaderConfig(chunk_bytes=7))) == list(read_file(path, "uds-json"))


def test_read_file_rejects_unknown_format_name():
    with pytest.raises(ValueError, match="unknown input format 'tsv'"):
        list(read_file(str(SAMPLES / "paraphrase.tsv"), "tsv"))


def test_texts_of_every_record_type():
    assert texts_of(ParaphrasePair("p:1", "p", "x .", "h .")) == [SourceText("x .", "p", "p:1", "source"),
                                                                  SourceText("h .", "p", "p:1", "gold")]
    assert texts_of(NliPair("n:1", "n", "A man sleeps.", "A man rests.", "entailment")) == [
        SourceText("A man sleeps.", "n", "n:1", "premise"), SourceText("A man rests.", "n", "n:1", "hypothesis")]
    assert texts_of(Review("r:1", "r", "Great.", 1, "movie")) == [SourceText("Great.", "r", "r:1", "text")]
    assert texts_of(NerSentence("c:3", "c", ["The", "U.S.", "said", "no", "."], ["O", "B-LOC", "O", "O", "O"])) == [
        SourceText("The U.S. said no.", "c", "c:3", "text")]
    assert texts_of(FactualityAnnotation("u:p", "u", ["He", "left", "."], 1, "leave", 1.1)) == [
        SourceText("He left.", "u", "u:p", "text")]
    unit = SourceText("Hi.", "t", "t:1")
    assert texts_of(unit) == [unit]
    with pytest.raises(TypeError):
        texts_of("a string")


def test_read_inputs_splits_records_and_dead_letters_and_counts_units():
    paths = [str(SAMPLES / "paraphrase.jsonl"), str(CORRUPT / "corrupt_text.txt")]
    p = TestPipeline()
    read = p | ReadInputs(paths)
    assert_that(read.records | beam.Map(lambda r: (type(r).__name__, r.source_id)), equal_to(
        [("ParaphrasePair", f"paraphrase.jsonl:p{i}") for i in range(1, 9)]
        + [("ParaphrasePair", "paraphrase.jsonl:9"), ("ParaphrasePair", "paraphrase.jsonl:10")]
        + [("SourceText", f"corrupt_text.txt:{n}") for n in (1, 6, 7)]), label="records")
    assert_that(read.dead | beam.Map(lambda d: (d.source_id, d.error_type)), equal_to(
        [("corrupt_text.txt:2", "EmptyLine"), ("corrupt_text.txt:3", "BadEncoding"),
         ("corrupt_text.txt:4", "TooLong"), ("corrupt_text.txt:5", "EmptyLine")]), label="dead")
    result = p.run()
    result.wait_until_finish()
    counters = {c.key.metric.name: c.committed for c in result.metrics().query(
        MetricsFilter().with_namespace("entailgen"))["counters"]}
    assert (counters["read"], counters["read_dead"]) == (17, 4)
