"""The seq2seq beam handler with tiny random T5 and BART models built from a config and saved (safetensors).

CPU by default; ENTAILGEN_TEST_DEVICE=cuda runs the same tests on a GPU, in bf16.
"""
import dataclasses
import os

import apache_beam as beam
import pytest
import torch
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from transformers import T5Config, T5ForConditionalGeneration

import tiny_seq2seq
from tiny_seq2seq import T5_SPECIALS, word_tokenizer

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate.hf import (GenerateCandidates, HfGenerateOptions, Seq2SeqBeamHandler,
                                              length_buckets, score_bytes, tracked_scores)
from entailgen.transforms.generate.model_dir import copy_to_local, is_remote

DEVICE = os.environ.get("ENTAILGEN_TEST_DEVICE", "cpu")
UNITS = [SourceText(t, "test", f"s{i}") for i, t in enumerate([
    "can you people guarantee the liquidation of bluestar ?", "a dog", "the cat sleeps",
    "you guarantee disposal", "dog", "John gave Mary a book in the garden"])]


def tiny_t5():
    tokenizer = word_tokenizer(T5_SPECIALS, "$A </s>")
    config = T5Config(vocab_size=len(tokenizer), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_decoder_layers=1,
                      num_heads=2, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    return T5ForConditionalGeneration(config), tokenizer


def tiny_bart():
    return tiny_seq2seq.tiny_bart(forced_bos_token_id=None)


@pytest.fixture(scope="module", params=[tiny_t5, tiny_bart], ids=["t5", "bart"])
def model_dir(request, tmp_path_factory):
    torch.manual_seed(0)
    path = tiny_seq2seq.saved(tmp_path_factory.mktemp(request.param.__name__), *request.param())
    assert (path / "model.safetensors").exists()
    return str(path)


def options(model_dir, **kw):
    kw = {"k": 3, "max_new_tokens": 5, "batch_tokens": 80, "pad_multiple": 1, "device": DEVICE, **kw}
    return HfGenerateOptions(model=model_dir, **kw)


@pytest.fixture(scope="module")
def loaded(model_dir):
    handler = Seq2SeqBeamHandler(options(model_dir))
    return handler, handler.load_model()


def test_length_buckets_sort_by_length_and_respect_the_budget():
    # cost of a bucket: sentences x k x (longest + max_new_tokens) = n x 2 x (len + 1), budget 20
    assert length_buckets([5, 1, 3, 3, 9], k=2, max_new_tokens=1, batch_tokens=20) == [[1, 2], [3], [0], [4]]
    assert length_buckets([50], k=10, max_new_tokens=24, batch_tokens=1) == [[0]]  # too long alone: still generated
    assert length_buckets([1, 1, 1, 1, 1], k=1, max_new_tokens=0, batch_tokens=99, size=2) == [[0, 1], [2, 3], [4]]
    # the cost counts padded lengths: 3 x 4 = 12 fits the budget, 3 x 8 does not
    assert length_buckets([3, 3, 4], k=1, max_new_tokens=0, batch_tokens=12, multiple=4) == [[0, 1, 2]]
    assert length_buckets([3, 3, 4], k=1, max_new_tokens=0, batch_tokens=12, multiple=8) == [[0], [1], [2]]


def test_loads_from_a_local_dir_in_eval_mode_fp32_on_cpu_bf16_on_cuda(loaded):
    _, bundle = loaded
    assert not bundle.model.training
    assert next(bundle.model.parameters()).dtype == (torch.bfloat16 if DEVICE == "cuda" else torch.float32)
    assert bundle.device.type == DEVICE


def test_k_candidates_per_input_ranked_by_score(loaded):
    handler, bundle = loaded
    beams = list(handler.run_inference(UNITS, bundle))
    assert [len(b) for b in beams] == [3] * len(UNITS)
    for unit, beam_ in zip(UNITS, beams):
        assert [c.source_id for c in beam_] == [unit.source_id] * 3
        assert [c.rank for c in beam_] == [1, 2, 3]
        assert [c.score for c in beam_] == sorted((c.score for c in beam_), reverse=True)
        assert {c.generator for c in beam_} == {f"hf:{handler.options.model}"}


def test_scores_are_the_beam_scores_generate_itself_reports(loaded):
    handler, bundle = loaded
    for unit, beam_ in zip(UNITS, handler.run_inference(UNITS, bundle)):
        features = bundle.tokenizer([unit.text], return_tensors="pt").to(bundle.device)
        with torch.inference_mode():
            out = bundle.model.generate(**features, num_beams=3, num_return_sequences=3, do_sample=False,
                                        max_new_tokens=5, output_scores=True, return_dict_in_generate=True)
        assert [c.text for c in beam_] == bundle.tokenizer.batch_decode(out.sequences, skip_special_tokens=True)
        assert [c.score for c in beam_] == pytest.approx(out.sequences_scores.float().tolist(),
                                                         abs=1e-4 if DEVICE == "cpu" else 5e-2)


def test_beams_stay_with_their_input_across_buckets_and_batches(loaded):
    handler, bundle = loaded
    together = list(handler.run_inference(UNITS, bundle))  # budget 80 splits these lengths into several buckets
    assert len(length_buckets([len(bundle.tokenizer(u.text)["input_ids"]) for u in UNITS], 3, 5, 80)) > 2
    alone = [list(handler.run_inference([u], bundle))[0] for u in UNITS]
    assert [[c.text for c in b] for b in together] == [[c.text for c in b] for b in alone]
    for b, a in zip(together, alone):
        assert [c.score for c in b] == pytest.approx([c.score for c in a], abs=1e-4)
    assert len({tuple(c.score for c in b) for b in together}) == len(UNITS)  # the beams do depend on the input


def test_padding_sources_to_a_multiple_leaves_the_beams_alone(model_dir, loaded):
    handler, bundle = loaded
    padded = Seq2SeqBeamHandler(options(model_dir, pad_multiple=8, bucket_size=2))
    plain, wide = list(handler.run_inference(UNITS, bundle)), list(padded.run_inference(UNITS, bundle))
    assert [[c.text for c in b] for b in wide] == [[c.text for c in b] for b in plain]
    assert [c.score for b in wide for c in b] == pytest.approx([c.score for b in plain for c in b],
                                                               abs=1e-4 if DEVICE == "cpu" else 5e-2)


def test_generation_is_deterministic(loaded):
    handler, bundle = loaded
    assert list(handler.run_inference(UNITS, bundle)) == list(handler.run_inference(UNITS, bundle))


def test_generate_candidates_transform_and_failed_batches(model_dir, loaded):
    handler, bundle = loaded
    expected = [dataclasses.replace(c, score=pytest.approx(c.score, abs=1e-4))  # padding moves the 7th digit
                for b in handler.run_inference(UNITS, bundle) for c in b if c.text]
    bad = SourceText(None, "test", "bad")  # tokenising None fails: its batch becomes DeadLetters
    opts = options(model_dir, min_batch_size=1, max_batch_size=1)
    with TestPipeline() as p:
        out = p | beam.Create(UNITS + [bad]) | GenerateCandidates(opts)
        assert_that(out.candidates, equal_to(expected))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type)),
                    equal_to([("bad", "generate", "AttributeError")]), label="dead")


def test_handler_batches_large_and_shares_when_asked(model_dir):
    handler = Seq2SeqBeamHandler(options(model_dir, large_model=True))
    assert handler.batch_elements_kwargs() == {"min_batch_size": 64, "max_batch_size": 4096}
    assert handler.share_model_across_processes()
    assert not Seq2SeqBeamHandler(options(model_dir)).share_model_across_processes()


def test_remote_model_dirs_are_copied_locally_first(tmp_path, model_dir):
    assert is_remote("gs://bucket/model") and not is_remote(model_dir) and not is_remote("facebook/bart-base")
    local = copy_to_local(model_dir, str(tmp_path / "copy"))  # any Beam filesystem path; here the local one
    assert sorted(os.listdir(local)) == sorted(os.listdir(model_dir))
    with open(os.path.join(local, "config.json"), "rb") as a, open(os.path.join(model_dir, "config.json"), "rb") as b:
        assert a.read() == b.read()


@pytest.mark.parametrize("source", [dict(beam_scores="recompute"), dict(beam_scores="generate", score_memory=0),
                                    dict(beam_scores="tracked")], ids=["recompute", "over-score-memory", "tracked"])
def test_every_score_source_gives_generates_own_scores(model_dir, loaded, source):
    """generate's output_scores (these tiny buckets fit score_memory) against the teacher-forced pass (asked for, or a
    bucket over score_memory) and the scores read off the search (the default)."""
    _, bundle = loaded
    own = list(Seq2SeqBeamHandler(options(model_dir, beam_scores="generate")).run_inference(UNITS, bundle))
    again = list(Seq2SeqBeamHandler(options(model_dir, **source)).run_inference(UNITS, bundle))
    assert [[c.text for c in b] for b in again] == [[c.text for c in b] for b in own]
    assert [c.score for b in again for c in b] == pytest.approx([c.score for b in own for c in b],
                                                                abs=1e-4 if DEVICE == "cpu" else 5e-2)
    assert score_bytes(2, 10, 50265, 24) == 2 * 10 * 50265 * 4 * 24


def test_tracked_scores_by_hand():
    """Two sequences after a one-token decoder prompt, two steps, beam rows of width 2. Sequence 0 came from row 0
    then row 1 (tokens 5, 7: -0.5 + -1.0, over 2 tokens); sequence 1 ended after one step from row 1 (token 6: -0.25,
    over 1 token; its second step is past the end). A token the tracker did not keep, or no beam_indices, gives None
    (recompute)."""
    class Kept:
        values = [torch.tensor([[-0.5, -2.0], [-0.25, -3.0]]), torch.tensor([[-0.1, -0.2], [-1.0, -4.0]])]
        tokens = [torch.tensor([[5, 6], [6, 5]]), torch.tensor([[1, 2], [7, 8]])]

    sequences = torch.tensor([[2, 5, 7], [2, 6, 1]])
    beam_indices = torch.tensor([[0, 1], [1, -1]])
    assert tracked_scores(Kept, sequences, beam_indices, 1.0) == pytest.approx([-0.75, -0.25])
    assert tracked_scores(Kept, sequences, beam_indices, 0.0) == pytest.approx([-1.5, -0.25])
    assert tracked_scores(Kept, torch.tensor([[2, 5, 9], [2, 6, 1]]), beam_indices, 1.0) is None
    assert tracked_scores(Kept, sequences, None, 1.0) is None  # a generate that returns no beam_indices


def test_an_unknown_score_source_is_refused(model_dir, loaded):
    _, bundle = loaded
    with pytest.raises(ValueError, match="beam_scores takes tracked, generate, recompute, got 'mine'"):
        Seq2SeqBeamHandler(options(model_dir, beam_scores="mine")).run_inference(UNITS, bundle)


def test_recomputed_scores_count_the_tokens_generate_forces_as_zero(tmp_path):
    """bart-base's decoding: generate forces <s> first and </s> at step max_new_tokens, each with log-prob 0."""
    torch.manual_seed(0)
    model, tokenizer = tiny_seq2seq.tiny_bart(forced_eos_token_id=2)
    model.generation_config.forced_bos_token_id = 0
    path = str(tiny_seq2seq.saved(tmp_path, model, tokenizer))
    own = Seq2SeqBeamHandler(options(path, beam_scores="generate"))
    bundle = own.load_model()
    a = list(own.run_inference(UNITS, bundle))
    assert max(len(c.text.split()) for x in a for c in x) == 3  # 5 tokens: <s>, 3 words, the forced </s>
    for source in ("recompute", "tracked"):
        b = list(Seq2SeqBeamHandler(options(path, beam_scores=source)).run_inference(UNITS, bundle))
        assert [[c.text for c in x] for x in b] == [[c.text for c in x] for x in a]
        assert [c.score for x in b for c in x] == pytest.approx([c.score for x in a for c in x],
                                                                abs=1e-4 if DEVICE == "cpu" else 5e-2), source
