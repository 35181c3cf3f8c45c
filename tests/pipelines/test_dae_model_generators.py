"""The dae family with the model generators (hf, ct2) end to end, with a tiny BART built from a config and saved:
batches come from content, so in-process and multi-processing runs write byte-identical shards."""
import json

import pyarrow.parquet as pq
import pytest
from tiny_seq2seq import save_tiny_bart

from entailgen.runners.cli import main

PAIRS = [("the cat sat on the mat", "a cat was sitting on the mat"),
         ("John gave Mary a book", "Mary got a book from John"),
         ("the dog chased the cat in the garden", "a cat was chased by the dog"),
         ("people guarantee the liquidation", "they promise the sale"),
         ("a man is playing a guitar", "someone plays music"),
         ("the children are eating lunch at school", "kids eat at school")]


@pytest.fixture(scope="module")
def tiny_bart(tmp_path_factory):
    """A random BART whose word-level vocabulary covers the pairs, saved as safetensors with its tokenizer."""
    words = [w for pair in PAIRS for text in pair for w in text.split()]
    path = save_tiny_bart(tmp_path_factory.mktemp("tiny-bart"), words)
    pairs = path / "pairs.tsv"
    pairs.write_text("".join(f"{x}\t{h}\n" for x, h in PAIRS))
    return path, pairs


def run(generator, model, pairs, out, *extra):
    assert main(["run", "dae", "--input", str(pairs), "--output", str(out), "--generator", generator, "--model",
                 str(model), "--k", "3", "--bottom", "1", "--max-new-tokens", "4", "--splits", "train=1", "--quiet",
                 *extra]) == 0
    return json.loads((out / "manifest.json").read_text())


def test_model_generator_writes_the_same_shards_in_any_runner_mode(tiny_bart, tmp_path):
    """ct2 (hf goes through the same content batches, batching.py; one end-to-end pair of runs costs ~1 min here)."""
    pytest.importorskip("ctranslate2")
    generator = "ct2"
    model, pairs = tiny_bart
    manifest = run(generator, model, pairs, tmp_path / "a")
    run(generator, model, pairs, tmp_path / "b", "--direct_running_mode=multi_processing", "--direct_num_workers=2")
    rows = [r for s in manifest["shards"] for r in pq.read_table(tmp_path / "a" / s["path"]).to_pylist()]
    assert "gold" in {r["kind"] for r in rows}
    assert {r["generator"] for r in rows if r["kind"] != "gold"} == {f"{generator}:{model}"}
    compared = 0
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file() and path.name != "run.json":
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path
            compared += 1
    assert compared >= 3


def test_ct2_without_a_model_is_a_usage_error(tmp_path, capsys):
    pairs = tmp_path / "p.tsv"
    pairs.write_text("a b\tc d\n")
    assert main(["run", "dae", "--input", str(pairs), "--output", str(tmp_path / "o"), "--generator", "ct2"]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: --generator ct2 needs --model "
                                               "(hub id, local dir or gs:// dir)")
