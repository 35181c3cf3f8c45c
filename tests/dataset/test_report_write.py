"""write_report on a hand-built dataset: same dataset, same bytes; an offline page; a card that `datasets` loads."""
import re

import pytest

from entailgen.dataset.manifest import build_manifest, dumps
from entailgen.dataset.report import CARD, REPORT, ReportConfig, write_report
from entailgen.dataset.report.card.header import hf_features
from entailgen.dataset.report.write import collect, embedded_sample_digests
from entailgen.dataset.shard import DEAD_LETTERS, shard_path, write_shard
from entailgen.schemas.records import ArcExample, DeadLetter, LabelledArc, dead_letter
from entailgen.transforms.separability import histogram, separability

SPLITS = ("train", "dev", "test")
CONFIG = {"pipeline": "dae", "input_format": None, "format": "parquet", "num_shards": 1, "seed": 0,
          "splits": {"ratios": [["train", 0.5], ["dev", 0.25], ["test", 0.25]], "seed": 0},
          "parser": {"backend": "spacy", "model": None}, "reader": {}, "family": None}


def la(head, child, rel, head_lemma, child_lemma, entailed):
    return LabelledArc(head, child, rel, head_lemma, child_lemma, entailed)


PREMISE = "The old man gave the young boy a book."
EXAMPLES = [
    ArcExample("g1", PREMISE, PREMISE, PREMISE[:-1].split() + ["."],
               [la(3, 2, "nsubj", "give", "man", 1), la(2, 1, "amod", "man", "old", 1)], "gold", "gold", "text.txt",
               "text.txt:1", split="train"),
    ArcExample("w1", PREMISE, "The young man gave the old boy a book.",
               "The young man gave the old boy a book .".split(),
               [la(3, 2, "nsubj", "give", "man", 1), la(2, 1, "amod", "man", "young", 0)], "word_swap", "word_swap",
               "text.txt", "text.txt:1", split="train"),
    ArcExample("b1", "Dogs bark.", "Dogs bark loudly.", ["Dogs", "bark", "loudly", "."],
               [la(1, 0, "nsubj", "bark", "dog", 1), la(1, 2, "advmod", "bark", "loudly", None)], "bottom", "beam",
               "text.txt", "text.txt:2", beam_rank=10, beam_score=-2.0, split="test"),
]
DEAD = [dead_letter("text.txt", "text.txt:3", "read", "UnicodeDecodeError", "bad bytes", b"\xff")]


def build_dataset(root, examples=EXAMPLES, fmt="parquet"):
    """A dataset directory as a run leaves it: shards of the non-empty splits, dead letters, and the manifest."""
    config = dict(CONFIG, format=fmt)
    shards = [write_shard(str(root), shard_path(s, 0, 1, fmt), s, [e for e in examples if e.split == s], ArcExample,
                          fmt) for s in SPLITS if any(e.split == s for e in examples)]
    dead = write_shard(str(root), shard_path(DEAD_LETTERS, 0, 1, fmt), DEAD_LETTERS, DEAD, DeadLetter, fmt)
    manifest = build_manifest(version="0.1.0", pipeline="dae", record_type="ArcExample", config=config,
                              inputs=[{"name": "text.txt", "sha256": "a" * 64, "bytes": 60}],
                              staged={"shards": shards, "dead_letters": [dead], "exports": [],
                                      "counts": [[["read", "text.txt"], 4], [["dead_by_stage", "read:Unicode"], 1],
                                                 [["skipped_by_reason", "label:NoGold"], 1]],
                                      "stats": [["arc_labels", {"entailed": 4, "not-entailed": 1}]],
                                      "separability": [separability(histogram(examples), "arc")]},
                              metrics={})
    (root / "manifest.json").write_text(dumps(manifest))
    return manifest


def test_card_and_report_are_written_and_byte_identical_for_the_same_dataset(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    manifest = build_dataset(one)
    build_dataset(two, EXAMPLES[::-1])
    assert write_report(str(one), manifest) == [CARD, REPORT]
    write_report(str(two), manifest)
    for name in (CARD, REPORT):
        assert (one / name).read_bytes() == (two / name).read_bytes()
    first = (one / REPORT).read_bytes()
    write_report(str(one), manifest)
    assert (one / REPORT).read_bytes() == first


def test_report_page_loads_nothing_from_anywhere(tmp_path):
    write_report(str(tmp_path), build_dataset(tmp_path))
    page = (tmp_path / REPORT).read_text()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import", page)
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}  # the SVG namespace only


def test_report_page_has_the_plots_and_one_arc_drawing_per_sampled_example(tmp_path):
    write_report(str(tmp_path), build_dataset(tmp_path), ReportConfig(examples_per_group=1))
    page = (tmp_path / REPORT).read_text()
    for title in ("Arc labels by split", "Arc labels by kind", "Rows by split and source", "Premise length (words)",
                  "Hypothesis length (words)", "Arc labels by dependency relation", "Dead letters by reason",
                  "Inputs skipped on purpose, by reason", "Overlap ROC AUC by rule"):
        assert f'aria-label="{title}"' in page, title
    # every labelled arc has head and child in its premise: overlap ties, 0.5; gold and bottom are of one label
    assert '<tr><td>word_swap</td><td>2</td><td>50%</td><td>0.50</td>' in page
    assert "| word_swap | 2 | 50% | 0.50 |" in (tmp_path / CARD).read_text()
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="arcs"') == 3  # one per kind
    assert page.count('data-label="not-entailed"') == 1 and page.count('data-label="unlabelled"') == 1
    assert "beam rank 10, score -2.000" in page


def test_parquet_and_jsonl_datasets_give_the_same_statistics_and_examples(tmp_path):
    parquet = build_dataset(tmp_path / "p")
    jsonl = build_dataset(tmp_path / "j", fmt="jsonl")
    assert collect(str(tmp_path / "p"), parquet, ReportConfig()) == collect(str(tmp_path / "j"), jsonl, ReportConfig())
    stats, examples = collect(str(tmp_path / "p"), parquet, ReportConfig())
    assert stats["labels"]["kind"] == {"bottom": {"entailed": 1, "unlabelled": 1}, "gold": {"entailed": 2},
                                       "word_swap": {"entailed": 1, "not-entailed": 1}}
    assert stats["dead"] == {"read:UnicodeDecodeError": 1}
    assert [e["id"] for e in examples] == ["b1", "g1", "w1"]


def test_embedded_samples_are_known_by_digest(tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.tsv").write_text("two\n")
    import hashlib
    assert embedded_sample_digests(tmp_path) == {hashlib.sha256(b"one\n").hexdigest(),
                                                 hashlib.sha256(b"two\n").hexdigest()}


def test_hugging_face_datasets_loads_the_splits_the_card_declares(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    root = tmp_path / "dataset"
    write_report(str(root), build_dataset(root))
    loaded = datasets.load_dataset(str(root), cache_dir=str(tmp_path / "cache"))
    assert {name: split.num_rows for name, split in loaded.items()} == {"train": 2, "test": 1}  # dev is empty
    assert loaded["train"].features._to_yaml_list() == hf_features("ArcExample")
    assert loaded["train"][0]["arcs"][1] == {"head": 2, "child": 1, "rel": "amod", "head_lemma": "man",
                                             "child_lemma": "old", "entailed": 1, "in_premise": None}
    dead = datasets.load_dataset(str(root), "dead_letters", cache_dir=str(tmp_path / "cache"))
    assert dead["train"][0]["error_type"] == "UnicodeDecodeError"


def test_report_shows_example_dead_letters_and_the_gold_paraphrase_beside_x(tmp_path):
    write_report(str(tmp_path), build_dataset(tmp_path))
    page = (tmp_path / REPORT).read_text()
    assert ('<tr class="dead-letter"><td>text.txt:3</td><td>read:UnicodeDecodeError</td><td>bad bytes</td>'
            in page)
    word_swap = re.search(r'<article class="example arc-example" data-kind="word_swap">.*?</article>', page).group()
    assert f'<p><b>Premise</b> {PREMISE}</p><p class="reference"><b>Gold h*</b> {PREMISE}</p>' in word_swap
    gold = re.search(r'<article class="example arc-example" data-kind="gold">.*?</article>', page).group()
    bottom = re.search(r'<article class="example arc-example" data-kind="bottom">.*?</article>', page).group()
    assert "Gold h*" not in gold and "Gold h*" not in bottom  # text.txt:2 has no gold row
    card = (tmp_path / CARD).read_text()
    assert "| text.txt:3 | read:UnicodeDecodeError | bad bytes |" in card


def test_no_relation_section_for_rows_without_arcs():
    from entailgen.dataset.report.html import relations_section

    assert relations_section({"labels": {"split": {"train": {"entailed": 1}}}}, 25) == ""
    assert 'id="relations"' in relations_section({"labels": {"relation": {"nsubj": {"entailed": 1}}}}, 25)


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_cards_loading_code_runs_in_the_dataset_folder(fmt, tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "dataset"
    write_report(str(root), build_dataset(root, fmt=fmt))
    code = re.search(r"## How to load it\n.*?```python\n(.*?)```", (root / CARD).read_text(), re.S).group(1)
    monkeypatch.chdir(root)
    scope = {}
    exec(code, scope)  # the card's own snippet, as a reader would paste it
    assert (scope["table"].num_rows, len(scope["frame"]), scope["data"]["train"].num_rows, len(scope["rows"])) == (
        2, 2, 2, 2)
