"""Scoring and training at CPU speed (issue 41): int8 scores near fp32's, identical cells scored once, the same scores
for the same inputs at each precision, --precision checked and recorded, the benchmark cache keyed by it, the parse
a document split needs, and length-bucketed training batches that keep every example and the seed's determinism."""
import json
import random

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.training.scoring.cache import cache_name
from entailgen.training.scoring.document_scorer import DocumentScorer, remembered
from entailgen.training.fitting.features import Features
from entailgen.training.scoring.precision import INT8_TOLERANCE, PRECISIONS, resolved_precision
from entailgen.training.scoring.scorers import DaeScorer, PairScorer, distinct
from entailgen.training.fitting.trainer import TrainOptions, bucketed, fit
from entailgen.transforms.claims.blocks import sentences_of
from entailgen.transforms.parser import Parser, ParserConfig
from trainer_fixtures import SCORED_PAIRS as PAIRS, toy_example, write_dataset
from trainer_fixtures import dae_model, pair_model  # noqa: F401 (fixtures: pytest finds them here)

torch.set_num_threads(1)


def quantized_layers(model) -> int:
    return sum(isinstance(m, torch.ao.nn.quantized.dynamic.Linear) for m in model.modules())


def test_int8_scores_stay_within_the_tolerance_of_fp32(pair_model, dae_model):
    fp32, int8 = (PairScorer(str(pair_model), precision=p) for p in ("fp32", "int8"))
    assert quantized_layers(int8.model) > 0 and quantized_layers(fp32.model) == 0  # the encoder's linears only
    quantized = torch.ao.nn.quantized.dynamic.Linear
    assert not isinstance(int8.model.classifier, quantized)
    layer = int8.model.encoder.encoder.layer[0]  # the feed-forward's down projection stays fp32, its up one is int8
    assert isinstance(layer.intermediate.dense, quantized) and not isinstance(layer.output.dense, quantized)
    a, b = fp32.score_many(PAIRS), int8.score_many(PAIRS)
    assert max(abs(x - y) for x, y in zip(a, b)) <= INT8_TOLERANCE
    dae = [DaeScorer(str(dae_model), precision=p).score_many(PAIRS[:2]) for p in ("fp32", "int8")]
    assert max(abs(x["score"] - y["score"]) for x, y in zip(*dae)) <= INT8_TOLERANCE
    assert (fp32.precision, int8.precision) == ("fp32", "int8")  # auto: test_onnx_runtime.py


def counted(scorer) -> list:
    """The batch sizes the scorer's model is run on, appended as it runs."""
    sizes, forward = [], scorer.model.forward

    def counting(**batch):
        sizes.append(len(batch["input_ids"]))
        return forward(**batch)
    scorer.model.forward = counting
    return sizes


def test_identical_cells_are_scored_once(pair_model, dae_model):
    assert distinct(["a", "b", "a", "c", "b"]) == (["a", "b", "c"], [0, 1, 0, 2, 1])
    for scorer in (PairScorer(str(pair_model), precision="fp32"), DaeScorer(str(dae_model), precision="fp32")):
        sizes = counted(scorer)
        once = scorer.score_many(PAIRS[:2])
        twice = scorer.score_many([PAIRS[0], PAIRS[1], PAIRS[0], PAIRS[0], PAIRS[1]])
        assert sizes == [2, 2]  # two forward passes of the two distinct pairs, not 2 + 5 rows
        assert twice == [once[0], once[1], once[0], once[0], once[1]]


def test_the_same_inputs_give_the_same_scores_at_each_precision(pair_model):
    for precision in ("fp32", "int8"):
        runs = [PairScorer(str(pair_model), precision=precision).score_many(PAIRS) for _ in range(2)]
        assert runs[0] == runs[1]
        rows = [("The man likes a park. A dog chases the cat.", "A man likes a park.")] * 2
        assert (DocumentScorer(str(pair_model), precision=precision).score_documents(rows)
                == DocumentScorer(str(pair_model), precision=precision).score_documents(rows))


def test_precision_is_checked_and_auto_is_onnx_fp32_on_cpu_and_fp32_on_cuda(pair_model, tmp_path, capsys):
    assert [resolved_precision(p, "cpu") for p in PRECISIONS] == ["onnx-fp32", "fp32", "int8", "onnx-fp32",
                                                                  "onnx-int8"]
    assert PairScorer(str(pair_model)).precision == "onnx-fp32"
    assert [resolved_precision(p, torch.device("cuda")) for p in ("auto", "fp32")] == ["fp32", "fp32"]
    with pytest.raises(ValueError, match="runs on cpu only"):
        resolved_precision("int8", "cuda:0")
    with pytest.raises(ValueError, match="unknown precision 'int4'"):
        PairScorer(str(pair_model), precision="int4")
    rows = tmp_path / "docs.jsonl"
    rows.write_text(json.dumps({"document": "A man likes a park.", "summary": "A man likes."}) + "\n")
    for command in (["score", str(pair_model), "--documents", "--input", str(rows), "--output", str(tmp_path / "o")],
                    ["evaluate", str(pair_model), "--benchmark", "summac", str(rows)]):
        assert main([*command, "--precision", "int4"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--precision: invalid choice: 'int4'" in err


def test_the_precision_is_recorded_in_the_scores_and_keys_the_benchmark_cache(pair_model, tmp_path, capsys):
    rows = tmp_path / "docs.jsonl"
    rows.write_text(json.dumps({"id": "r", "document": "The man likes a park. A dog chases the cat.",
                                "summary": "A man likes a park."}) + "\n")
    scores = {}
    for precision in ("fp32", "int8"):
        out = tmp_path / precision
        assert main(["score", str(pair_model), "--documents", "--input", str(rows), "--output", str(out),
                     "--precision", precision]) == 0
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["config"]["precision"] == precision
        scores[precision] = manifest
    capsys.readouterr()
    names = {p: cache_name(pair_model, precision=p) for p in ("fp32", "int8")}
    assert names["fp32"] != names["int8"] and names["int8"].endswith("-int8.json")
    assert cache_name(pair_model) == names["fp32"]  # the cpu's fp32 scores keep the name they had


def test_a_document_split_parses_only_for_sentences_and_each_paragraph_once():
    parser = Parser(ParserConfig())
    text = "The council voted on Tuesday. Mr Reed, who chairs it, said the plan would cost £2m. It starts in May."
    full, light = next(parser.tokens([text])), next(parser.tokens([text], sentences_only=True))
    assert [s.text for s in sentences_of(light, text, 0)] == [s.text for s in sentences_of(full, text, 0)]
    assert [t.head for t in light] == [t.head for t in full] and light[0].pos == ""  # no tagger ran
    calls = []

    def compute(keys):
        calls.append(list(keys))
        return [k.upper() for k in keys]
    memo: dict = {}
    remembered(memo, ["a", "b", "a"], compute, kept=3)
    remembered(memo, ["b", "c", "d"], compute, kept=3)
    assert calls == [["a", "b"], ["c", "d"]] and list(memo) == ["b", "c", "d"]  # the oldest out past 3


def features(lengths) -> list[Features]:
    return [Features(list(range(n)), [0] * n, label=i) for i, n in enumerate(lengths)]


def test_bucketed_batches_keep_every_example_once_with_like_lengths_and_a_seeded_order():
    rng = random.Random(3)
    lengths = [rng.randrange(5, 120) for _ in range(203)]
    batches = list(bucketed(features(lengths), 8, 10, random.Random(0)))
    assert sorted(f.label for b in batches for f in b) == list(range(203))  # nothing dropped, nothing twice
    padded = sum(len(b) * max(len(f.input_ids) for f in b) for b in batches)
    stream = sum(8 * max(lengths[i:i + 8]) for i in range(0, 203, 8))
    assert padded < 0.7 * stream  # like lengths together: far less padding than the stream's order
    again = list(bucketed(features(lengths), 8, 10, random.Random(0)))
    assert [[f.label for f in b] for b in batches] == [[f.label for f in b] for b in again]
    other = list(bucketed(features(lengths), 8, 10, random.Random(1)))
    assert [[f.label for f in b] for b in batches] != [[f.label for f in b] for b in other]


def test_training_with_buckets_uses_every_example_and_is_deterministic_for_a_seed(tiny_encoder, tmp_path):
    data = write_dataset(tmp_path / "data", "ArcExample", {"train": [toy_example(i) for i in range(40)]})
    options = TrainOptions(encoder=str(tiny_encoder), epochs=1, batch_size=4, bucket_batches=3, max_length=24,
                           progress=False, device="cpu", seed=5)
    runs = [fit(str(data), str(tmp_path / f"m{i}"), options) for i in range(2)]
    assert runs[0]["counts"]["train"] == {"read": 40, "used": 40} and runs[0]["steps"] == 10
    assert runs[0]["loss_curve"] == runs[1]["loss_curve"]
    assert (tmp_path / "m0" / "model.safetensors").read_bytes() == (tmp_path / "m1" / "model.safetensors").read_bytes()
    with pytest.raises(ValueError, match="--bucket-batches must be at least 1"):
        TrainOptions(bucket_batches=0).check()
