"""ONNX Runtime as a scorer's runtime (issue 41, training.scoring.onnx_runtime): onnx-fp32 scores within FP32_TOLERANCE
of torch fp32 and onnx-int8 within INT8_TOLERANCE, the same layers int8 as torch's int8, the same scores for the same
inputs, the graph built once into the user's cache (never into the model dir), the precision recorded and keying the
benchmark cache, MC dropout kept on torch, a bad choice refused in one line."""
import json
import os
import shutil
from collections import Counter

import onnx
import pytest
import torch

from entailgen.runners.cli import main, make_parser
from entailgen.training.scoring import onnx_runtime
from entailgen.training.scoring.cache import cache_name
from entailgen.training.scoring.document_scorer import DocumentScorer
from entailgen.training.scoring.onnx_runtime import FP32_TOLERANCE, OrtModel, cached_graph
from entailgen.training.scoring.precision import INT8_TOLERANCE, PRECISIONS, resolved_precision
from entailgen.training.scoring.scorers import DaeScorer, PairScorer
from trainer_fixtures import SCORED_PAIRS as PAIRS
from trainer_fixtures import dae_model, pair_model  # noqa: F401 (fixtures: pytest finds them here)

torch.set_num_threads(1)


def ops(path: str) -> Counter:
    return Counter(node.op_type for node in onnx.load(path).graph.node)


def test_onnx_scores_stay_within_their_tolerances_of_torch_fp32(pair_model, dae_model):
    fp32, ort32, ort8 = (PairScorer(str(pair_model), precision=p) for p in ("fp32", "onnx-fp32", "onnx-int8"))
    assert isinstance(ort32.model, OrtModel) and isinstance(ort8.model, OrtModel)
    a, b, c = (s.score_many(PAIRS) for s in (fp32, ort32, ort8))
    assert max(abs(x - y) for x, y in zip(a, b)) <= FP32_TOLERANCE
    assert max(abs(x - y) for x, y in zip(a, c)) <= INT8_TOLERANCE
    assert max(abs(x - y) for x, y in zip(a, b)) < max(abs(x - y) for x, y in zip(a, c))  # int8 ran in onnx-int8 only
    dae = [DaeScorer(str(dae_model), precision=p).score_many(PAIRS[:2]) for p in ("fp32", "onnx-fp32", "onnx-int8")]
    arcs = [[arc["entailed_probability"] for r in run for arc in r["arcs"]] for run in dae]
    assert max(abs(x - y) for x, y in zip(arcs[0], arcs[1])) <= FP32_TOLERANCE
    assert max(abs(x - y) for x, y in zip(arcs[0], arcs[2])) <= INT8_TOLERANCE


def test_onnx_int8_quantizes_the_layers_torch_int8_does(pair_model):
    fused, quantized = ops(PairScorer(str(pair_model), precision="onnx-fp32").model.path), ops(
        PairScorer(str(pair_model), precision="onnx-int8").model.path)
    assert fused["Attention"] == 2 and fused["SkipLayerNormalization"] == 4 and fused["BiasGelu"] == 2  # 2 layers
    assert "MatMulInteger" not in fused and "QAttention" not in fused
    # per layer: attention's q, k, v (one fused QAttention), its output and the feed-forward's up projection int8;
    # the down projection (intermediate x hidden) and the head fp32
    assert quantized["QAttention"] == 2 and quantized["MatMulInteger"] == 4 and quantized["MatMul"] == 3
    graph = onnx.load(PairScorer(str(pair_model), precision="onnx-int8").model.path).graph
    shapes = {init.name: tuple(init.dims) for init in graph.initializer}
    assert sorted(shapes[n.input[1]] for n in graph.node if n.op_type == "MatMul") == [(32, 2), (37, 32), (37, 32)]


def test_the_same_inputs_give_the_same_onnx_scores_and_the_graph_is_built_once(pair_model):
    before = sorted(os.listdir(pair_model))
    for precision in ("onnx-fp32", "onnx-int8"):
        path = cached_graph(str(pair_model), precision)
        first = PairScorer(str(pair_model), precision=precision)
        built = os.stat(path).st_mtime_ns
        again = PairScorer(str(pair_model), precision=precision)
        assert os.stat(path).st_mtime_ns == built  # read from the cache, not exported again
        assert first.score_many(PAIRS) == again.score_many(PAIRS) == again.score_many(PAIRS)
        rows = [("The man likes a park. A dog chases the cat.", "A man likes a park.")] * 2
        assert (DocumentScorer(str(pair_model), precision=precision).score_documents(rows)
                == DocumentScorer(str(pair_model), precision=precision).score_documents(rows))
        assert precision in os.path.basename(path) and not path.startswith(str(pair_model))
    assert sorted(os.listdir(pair_model)) == before  # nothing written into the model dir


def test_mc_dropout_stays_on_torch_and_onnx_is_cpu_only(pair_model, tmp_path, capsys):
    assert {"onnx-fp32", "onnx-int8"} <= set(PRECISIONS) and set(onnx_runtime.ONNX_PRECISIONS) <= set(PRECISIONS)
    for command in ("score", "evaluate"):  # the CLI's choices are training.scoring.precision's
        sub = make_parser(command)._subparsers._group_actions[0].choices[command]
        assert next(a.choices for a in sub._actions if a.dest == "precision") == PRECISIONS
    # torch fp32: ONNX Runtime's graph has no dropout, and torch int8 moved XSumFaith 3.4 points (speed.md, run 6)
    assert resolved_precision("auto", "cpu", mc_dropout=4) == "fp32"
    assert resolved_precision("auto", "cuda") == "fp32"
    for precision in ("onnx-fp32", "onnx-int8"):
        with pytest.raises(ValueError, match="runs on cpu only"):
            resolved_precision(precision, torch.device("cuda"))
        with pytest.raises(ValueError, match="--mc-dropout needs fp32, int8 or auto"):
            PairScorer(str(pair_model), precision=precision, mc_dropout=2)
    scorer = PairScorer(str(pair_model), mc_dropout=2)
    assert scorer.precision == "fp32" and not isinstance(scorer.model, OrtModel)
    rows, bench = tmp_path / "docs.jsonl", benchmark_file(tmp_path)
    rows.write_text(json.dumps({"document": "A man likes a park.", "summary": "A man likes."}) + "\n")
    for command in (["score", str(pair_model), "--documents", "--input", str(rows), "--output", str(tmp_path / "o")],
                    ["evaluate", str(pair_model), "--benchmark", "summac", str(bench)]):
        assert main([*command, "--precision", "onnx-int8", "--mc-dropout", "2"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "runs one plain pass" in err and "Traceback" not in err


def benchmark_file(tmp_path):
    rows = [{"document": "The man likes a park. A dog chases a cat.", "claim": claim, "label": label, "cut": cut}
            for cut, claim, label in [("val", "A man likes a park.", 1), ("val", "A dog chases.", 0),
                                      ("test", "A man likes.", 1), ("test", "A cat chases a dog.", 0)]]
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_onnx_precision_is_recorded_and_keys_the_benchmark_cache(pair_model, tmp_path, capsys):
    rows = tmp_path / "docs.jsonl"
    rows.write_text(json.dumps({"id": "r", "document": "The man likes a park. A dog chases the cat.",
                                "summary": "A man likes a park."}) + "\n")
    for precision in ("onnx-fp32", "onnx-int8"):
        out = tmp_path / precision
        assert main(["score", str(pair_model), "--documents", "--input", str(rows), "--output", str(out),
                     "--precision", precision]) == 0
        assert json.loads((out / "manifest.json").read_text())["config"]["precision"] == precision
    names = {p: cache_name(pair_model, precision=p) for p in ("fp32", "int8", "onnx-fp32", "onnx-int8")}
    assert len(set(names.values())) == 4 and names["onnx-int8"].endswith("-onnx-int8.json")
    model = tmp_path / "model"  # a copy: the evaluation and the card are written into the model dir
    shutil.copytree(pair_model, model)
    assert main(["evaluate", str(model), "--benchmark", "summac", str(benchmark_file(tmp_path)),
                 "--precision", "onnx-int8"]) == 0
    capsys.readouterr()
    report = json.loads((model / "eval" / "benchmark-summac.toy-onnx-int8.json").read_text())
    assert report["model"]["precision"] == "onnx-int8"
    assert report["model"]["score_caches"][0].endswith("-onnx-int8.json")
    assert "onnx-int8" in (model / "README.md").read_text()
