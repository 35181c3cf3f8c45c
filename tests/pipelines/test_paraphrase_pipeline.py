"""The paraphrase family end to end with real Apertium (two routes, a handful of sentences): accounting, the ParaNMT
export that dae reads, determinism across runner modes, bad options."""
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from entailgen.dataset.split import SplitConfig
from entailgen.pipelines.base import RunConfig
from entailgen.pipelines.paraphrase import ParaphraseOptions
from entailgen.runners.cli import main
from entailgen.runners.run import run_job
from entailgen.transforms.io.formats import detect_format
from entailgen.transforms.io.paranmt import read_paraphrase_tsv

needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not installed")
TWO_ROUTES = (("eng-spa", "spa-eng"), ("eng-cat", "cat-eng"))
SENTENCES = ["The children built a snowman in the garden.",
             "The pilot landed the plane safely despite the strong wind.",
             "The children built a snowman in the garden.",  # a duplicate: skipped, counted
             "The farmers harvested the wheat before the storm arrived.",
             "Yes."]  # nothing to rewrite: no distinct round trip


def paraphrase(tmp_path: Path, out: str, *beam_args, sentences=SENTENCES, encoder="default") -> tuple[dict, list]:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(s + "\n" for s in sentences))
    config = RunConfig(pipeline="paraphrase", inputs=(str(corpus),), output=str(tmp_path / out),
                       splits=SplitConfig.parse("train=0.5,test=0.5"),
                       family=ParaphraseOptions(routes=TWO_ROUTES, export_paranmt=True, encoder=encoder))
    manifest = run_job(config, list(beam_args))
    rows = [r for s in manifest["shards"] for r in pq.read_table(tmp_path / out / s["path"]).to_pylist()]
    return manifest, rows


@needs_apertium
def test_every_sentence_is_paired_skipped_or_dead_and_dae_reads_the_export(tmp_path):
    manifest, rows = paraphrase(tmp_path, "out")
    total = manifest["counts"]["total"]
    assert total["read"] == 5 == total["written"] + total["skipped"] + total["dead_letters"]
    assert manifest["counts"]["skipped_by_reason"]["paraphrase:DuplicateText"] == 1
    assert total["written"] >= 2  # Apertium rewrites these sentences (e.g. built -> constructed)
    assert {r["text"] for r in rows} < set(SENTENCES) and all(r["gold"] != r["text"] for r in rows)
    assert all(0.75 <= r["similarity"] <= 0.995 and r["generator"] == "apertium+minilm" for r in rows)
    export = tmp_path / "out" / "paranmt.tsv"
    assert manifest["exports"][0]["path"] == "paranmt.tsv" and manifest["exports"][0]["rows"] == len(rows)
    assert detect_format(str(export)) == "paraphrase-tsv"
    read = list(read_paraphrase_tsv(export.open("rb"), "paranmt.tsv"))
    assert sorted((p.text, p.gold) for p in read) == sorted((r["text"], r["gold"]) for r in rows)

    # `entailgen run dae --input paranmt.tsv` takes the pairs as (x, h*): its gold rows are exactly the export's rows
    beams = tmp_path / "beams.jsonl"
    beams.write_text("".join(json.dumps({"source": r["text"], "candidates": [r["text"] + " today"]}) + "\n"
                             for r in rows))
    dae = tmp_path / "dae"
    assert main(["run", "dae", "--input", str(export), "--output", str(dae), "--generator", "candidates",
                 "--candidates", str(beams), "--splits", "train=0.5,test=0.5", "--quiet"]) == 0
    dae_manifest = json.loads((dae / "manifest.json").read_text())
    dae_rows = [r for s in dae_manifest["shards"] for r in pq.read_table(dae / s["path"]).to_pylist()]
    assert sorted((r["premise"], r["hypothesis"]) for r in dae_rows if r["kind"] == "gold") == \
        sorted((r["text"], r["gold"]) for r in rows)
    assert dae_manifest["counts"]["total"]["read"] == len(rows) and dae_manifest["counts"]["total"]["dead_letters"] == 0
    # splits follow x in both families, so a pair stays in the split it was made in
    assert {(r["premise"], r["split"]) for r in dae_rows if r["kind"] == "gold"} == \
        {(r["text"], r["split"]) for r in rows}


@needs_apertium
def test_paraphrase_output_is_deterministic_across_runner_modes(tmp_path):
    """Lexical similarity keeps it fast (MiniLM's scores are batch-independent by construction: test_generate_rank)."""
    kept = SENTENCES[:3]
    paraphrase(tmp_path, "a", sentences=kept, encoder=None)
    paraphrase(tmp_path, "b", "--direct_running_mode=multi_processing", "--direct_num_workers=2", sentences=kept,
               encoder=None)
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file() and path.name != "run.json":
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path


@pytest.mark.parametrize("flags, message", [
    (["--min-similarity", "0.9", "--max-similarity", "0.8"],
     "need -1 <= --min-similarity <= --max-similarity <= 1, got 0.9 and 0.8"),
    (["--generator", "hf"], "--generator hf needs --model (hub id, local dir or gs:// dir)"),
])
def test_bad_options_are_one_line_usage_errors(tmp_path, capsys, flags, message):
    corpus = tmp_path / "c.txt"
    corpus.write_text("A line.\n")
    assert main(["run", "paraphrase", "--input", str(corpus), "--output", str(tmp_path / "o"), *flags]) == 2
    assert capsys.readouterr().err == f"entailgen: error: {message}\n"


def test_hf_round_trips_are_rescored_by_similarity_to_x(tmp_path):
    """--generator hf: a tiny random BART's beams (log-probabilities) are re-ranked by similarity to x."""
    from tiny_seq2seq import save_tiny_bart

    save_tiny_bart(tmp_path / "bart", "a dog the cat sleeps John gave Mary book in garden".split(),
                   forced_bos_token_id=None)
    corpus = tmp_path / "c.txt"
    corpus.write_text("a dog\nthe cat sleeps\nJohn gave Mary a book in the garden\n")
    out = tmp_path / "o"
    assert main(["run", "paraphrase", "--input", str(corpus), "--output", str(out), "--generator", "hf", "--model",
                 str(tmp_path / "bart"), "--k", "3", "--max-new-tokens", "6", "--lexical-ranking",
                 "--min-similarity", "0", "--max-similarity", "1", "--splits", "train=1", "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    total = manifest["counts"]["total"]
    assert total["read"] == 3 == total["written"] + total["skipped"] + total["dead_letters"]
    assert rows
    for r in rows:  # a similarity in [0, 1] (unigram F1), not a beam log-probability
        assert r["generator"].endswith("+lexical") and 0 <= r["similarity"] <= 1 and r["gold"] != r["text"]
