"""bench/gpu.py, the one GPU call (issue 57), run as its --dry-run (tiny shapes, CPU) so it cannot rot between GPU
runs: every section and figure is in the JSON, and the handlers' beams match the plain generate loop's."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import gpu  # noqa: E402 (bench/ scripts import each other as scripts do)


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench-gpu.json"
    assert gpu.main(["--dry-run", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_every_section_and_figure(dry_run):
    assert dry_run["complete"] is True and dry_run["dry_run"] is True
    info = dry_run["machine"]["info"]
    assert info["device"] == "cpu" and info["cpu_count"] >= 1 and info["torch"] and info["transformers"]
    assert "everything" in dry_run["machine"]["on_cpu"]
    generation = dry_run["generation"]
    assert generation["run"] == "done"
    assert generation["setup"]["n"] == 8 and generation["setup"]["k"] == 3
    assert generation["loop"]["sentences_per_s"] > 0
    figures = ["hf:default", "hf:recompute", "hf:static-cache", "ct2:int8", "ct2:float32", "loop_without_scores"]
    for key in figures:
        assert generation[key]["sentences_per_s"] > 0 and generation[key]["ratio_to_loop"] > 0, key
    for key in ("run", "dae:minilm-l6", "pair:minilm-l6", "dae-accum4:minilm-l6", "dae:mpnet-base", "pair:mpnet-base",
                "dae-accum4:mpnet-base"):
        assert key in dry_run["training"], key
    assert dry_run["training"]["run"] == "done"
    for task in ("dae", "pair"):
        for shape in ("minilm-l6", "mpnet-base"):
            figure = dry_run["training"][f"{task}:{shape}"]
            assert figure["examples"] == 48 and figure["examples_per_s"] > 0, (task, shape)
    for shape in ("minilm-l6", "mpnet-base"):  # 48 rows: 2 steps of 32, or of 4 accumulated batches of 8
        plain, accumulated = dry_run["training"][f"dae:{shape}"], dry_run["training"][f"dae-accum4:{shape}"]
        assert (plain["steps"], plain["grad_accum"]) == (2, 1) and (accumulated["steps"], accumulated["grad_accum"],
                                                                     accumulated["batch_size"]) == (2, 4, 8), shape
    assert dry_run["scoring"]["run"] == "done"
    for shape in ("minilm-l6", "mpnet-base"):
        figure = dry_run["scoring"][f"{shape}:fp32"]
        assert figure["scored"] == 16 and figure["rows_per_s"] > 0, shape


def test_handlers_beams_are_the_loops(dry_run):
    """fp32 on CPU: the hf handler's beams and scores are the loop's (its buckets pad differently), with scores read
    off the search, recomputed, or under a static cache; CTranslate2's float32 ones too, its scores within 1e-4; int8
    keeps the top beams."""
    generation = dry_run["generation"]
    hf = generation["hf:default"]["beams"]
    assert hf == {"units": 8, "top_beam_identical": 1.0, "beams_identical": 1.0, "beam_sets_identical": 1.0,
                  "scores_compared": 24, "max_score_difference": hf["max_score_difference"],
                  "scores_within_tolerance": 1.0, "tolerance": 1e-4}
    assert hf["max_score_difference"] <= 1e-5
    for variant in ("hf:recompute", "hf:static-cache"):  # the other score source, the fixed-size KV cache
        beams = generation[variant]["beams"]
        assert (beams["beams_identical"], beams["scores_compared"], beams["scores_within_tolerance"]) == (1.0, 24, 1.0)
    assert generation["hf:static-cache+compile"] == {"skipped": "dry run: compiling takes minutes on a CPU"}
    peaked = generation["beams_peaked"]  # again on a model of peaked distributions
    assert (peaked["n"], peaked["init_std"]) == (8, 0.2)
    for key in ("hf:default", "hf:recompute", "hf:static-cache", "ct2:float32"):
        assert (peaked[key]["beams_identical"], peaked[key]["scores_within_tolerance"]) == (1.0, 1.0), key
    ct2 = generation["ct2:float32"]["beams"]
    assert (ct2["beams_identical"], ct2["scores_compared"], ct2["scores_within_tolerance"]) == (1.0, 24, 1.0)
    assert generation["ct2:int8"]["beams"]["top_beam_identical"] == 1.0


def test_a_spent_budget_skips_with_the_reason(tmp_path):
    """--budget-s 0: no figure is started, each section says why, and the JSON is still complete."""
    out = tmp_path / "b.json"
    assert gpu.main(["--dry-run", "--budget-s", "0", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["complete"] is True and report["machine"]["info"]["device"] == "cpu"
    for section in ("generation", "training", "scoring"):
        assert report[section]["run"]["skipped"].startswith("time budget: "), section


def test_same_beams_counts_by_hand():
    """Two units: the first identical, the second with its two beams swapped and one score 0.25 off."""
    import generate

    reference = [[("a b", -0.5), ("a c", -0.75)], [("x y", -1.0), ("x z", -1.5)]]
    other = [[("a b", -0.5), ("a c", -0.75)], [("x z", -1.25), ("x y", -1.0)]]
    assert generate.same_beams(reference, other, tolerance=0.1) == {
        "units": 2, "top_beam_identical": 0.5, "beams_identical": 0.5, "beam_sets_identical": 1.0,
        "scores_compared": 4, "max_score_difference": 0.25, "scores_within_tolerance": 0.75, "tolerance": 0.1}


def test_default_out_follows_OUT(monkeypatch):
    monkeypatch.setenv("OUT", "/somewhere")
    assert gpu.default_out() == "/somewhere/bench-gpu.json"
    monkeypatch.delenv("OUT")
    assert gpu.default_out() == "out/bench-gpu.json"
