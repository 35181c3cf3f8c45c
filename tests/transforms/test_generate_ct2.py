"""The CTranslate2 generator against HF generate, with tiny random BART and T5 models built from a config and saved.

Same weights, fp32 on CPU: CTranslate2's ranked hypotheses and scores must be HF generate's (decoder start, forced BOS,
EOS from the first step and length normalisation replayed), the conversion must leave the user's dir alone and be
cached by content, and the Beam transform must give the same candidates however its input is ordered.
"""
import json
import os
import random

import apache_beam as beam
import pytest
import torch
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from transformers import T5Config, T5ForConditionalGeneration

import tiny_seq2seq
from tiny_seq2seq import T5_SPECIALS, WORDS, word_tokenizer

pytest.importorskip("ctranslate2")

from entailgen.schemas.sources import SourceText  # noqa: E402
from entailgen.transforms.generate.batching import content_batches, content_bucket  # noqa: E402
from entailgen.transforms.generate.ct2 import (Ct2BeamHandler, Ct2Candidates, Ct2GenerateOptions,  # noqa: E402
                                               ct2_model_dir, is_ct2_dir, model_digest, resolve_compute_type,
                                               with_forced_eos)

K, NEW_TOKENS = 4, 8


def tiny_bart():
    """bart-base's decoding: decoder starts from eos, generate forces <s> first; eos made likely enough to end beams."""
    model, tokenizer = tiny_seq2seq.tiny_bart()
    model.generation_config.forced_bos_token_id = 0
    with torch.no_grad():
        model.final_logits_bias[0, 2] = 2.5
    return model, tokenizer


def tiny_t5():
    """T5's decoding: decoder starts from pad; eos's output row close to pad's (a likely token) so that beams end."""
    tokenizer = word_tokenizer(T5_SPECIALS, "$A </s>")
    config = T5Config(vocab_size=len(tokenizer), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_decoder_layers=1,
                      num_heads=2, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                      tie_word_embeddings=False)
    model = T5ForConditionalGeneration(config)
    with torch.no_grad():
        model.lm_head.weight[1] = model.lm_head.weight[0] * 0.8
    return model, tokenizer


@pytest.fixture(scope="module", params=[tiny_bart, tiny_t5], ids=["bart", "t5"])
def model_dir(request, tmp_path_factory):
    torch.manual_seed(0)
    return str(tiny_seq2seq.saved(tmp_path_factory.mktemp(request.param.__name__), *request.param()))


@pytest.fixture(scope="module")
def bart_dir(tmp_path_factory):
    torch.manual_seed(0)
    model, tokenizer = tiny_bart()
    path = tmp_path_factory.mktemp("bart-only")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("ct2-cache"))


def options(model_dir, cache, **kw):
    return Ct2GenerateOptions(model=model_dir, **{"k": K, "max_new_tokens": NEW_TOKENS, "compute_type": "float32",
                                                  "device": "cpu", "cache_dir": cache, **kw})


def inputs(n: int, seed: int = 1) -> list[SourceText]:
    rng = random.Random(seed)
    return [SourceText(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))), "test", f"s{i}")
            for i in range(n)]


def hf_beams(model_dir, units, new_tokens=NEW_TOKENS):
    """HF generate's own ranked beams and sequences_scores, in one padded batch."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir).eval()
    features = tokenizer([u.text for u in units], padding=True, return_tensors="pt")
    with torch.inference_mode():
        out = model.generate(**features, num_beams=K, num_return_sequences=K, do_sample=False,
                             max_new_tokens=new_tokens, output_scores=True, return_dict_in_generate=True)
    texts = tokenizer.batch_decode(out.sequences, skip_special_tokens=True)
    ended = sum(int((row[1:] == model.config.eos_token_id).any()) for row in out.sequences)
    scores = out.sequences_scores.tolist()
    return [[(" ".join(texts[i * K + r].split()), scores[i * K + r]) for r in range(K)]
            for i in range(len(units))], ended


def test_ranked_hypotheses_and_scores_equal_hf_generate_in_fp32(model_dir, cache):
    units = inputs(200)
    handler = Ct2BeamHandler(options(model_dir, cache))
    ours = list(handler.run_inference(units, handler.load_model()))
    theirs, ended = hf_beams(model_dir, units)
    assert ended > 20  # some beams end with eos before the last step: that path is compared too
    same = [i for i in range(len(units)) if [c.text for c in ours[i]] == [t for t, _ in theirs[i]]]
    assert len(same) >= 0.95 * len(units)
    assert [c.rank for c in ours[0]] == [1, 2, 3, 4]
    drift = max(abs(c.score - s) for i in same for c, (_, s) in zip(ours[i], theirs[i]))
    assert drift < 1e-3


@pytest.mark.parametrize("forced_eos", [2, None], ids=["forced-eos", "no-forced-eos"])
def test_beams_that_reach_the_limit_equal_hf_generates(forced_eos, cache, tmp_path):
    """Random weights rarely end a beam, so nearly all reach max_new_tokens = 5 tokens, which counts what generate's
    does (forced BOS, words, end token); with bart-base's forced_eos_token_id, generate ends them one word early."""
    torch.manual_seed(0)
    model, tokenizer = tiny_seq2seq.tiny_bart(forced_eos_token_id=forced_eos)
    model.generation_config.forced_bos_token_id = 0
    path = str(tiny_seq2seq.saved(tmp_path, model, tokenizer))
    units = inputs(40, seed=7)
    handler = Ct2BeamHandler(options(path, cache, max_new_tokens=5))
    ours = list(handler.run_inference(units, handler.load_model()))
    theirs, _ = hf_beams(path, units, new_tokens=5)
    counts = [[len(c.text.split()) for c in beam_] for beam_ in ours]
    assert counts == [[len(t.split()) for t, _ in beam_] for beam_ in theirs]
    limit = 3 if forced_eos is not None else 4  # 5 tokens less <s>, less the </s> generate forces
    assert sum(n == limit for beam_ in counts for n in beam_) >= 0.75 * 40 * K and max(map(max, counts)) == limit
    assert [[c.text for c in beam_] for beam_ in ours] == [[t for t, _ in beam_] for beam_ in theirs]
    assert max(abs(c.score - s) for a, b in zip(ours, theirs) for c, (_, s) in zip(a, b)) < 1e-4


def test_forced_eos_adds_one_to_the_length_of_beams_that_did_not_end():
    # sums -2.0 over 2 tokens and -3.0 over 3; forced eos: -2.0 / 3 and -3.0 / 4 (length penalty 1)
    ranked = with_forced_eos([["a", "b"], ["a", "b", "</s>"]], [-1.0, -1.0], "</s>", 1.0)
    assert ranked == [(["a", "b", "</s>"], -2.0 / 3), (["a", "b", "</s>"], -1.0)]
    # length penalty 2: -1.0 x 2 ** 2 / 3 ** 2 = -4 / 9, which now ranks above the ended -0.5
    ranked = with_forced_eos([["x", "</s>"], ["a", "b"]], [-0.5, -1.0], "</s>", 2.0)
    assert ranked == [(["a", "b", "</s>"], -4.0 / 9), (["x", "</s>"], -0.5)]


def test_conversion_is_cached_by_content_and_leaves_the_users_dir_alone(model_dir, cache, tmp_path):
    with open(os.path.join(model_dir, "config.json")) as f:
        before = f.read()
    first = ct2_model_dir(model_dir, cache)
    assert os.path.basename(first) == model_digest(model_dir) and is_ct2_dir(first)
    stamp = os.stat(os.path.join(first, "model.bin")).st_mtime_ns
    assert ct2_model_dir(model_dir, cache) == first  # second worker: no new conversion
    assert os.stat(os.path.join(first, "model.bin")).st_mtime_ns == stamp
    with open(os.path.join(model_dir, "config.json")) as f:
        assert f.read() == before  # normalize_before went into a temp copy only
    assert "normalize_before" not in json.loads(before)
    assert not is_ct2_dir(model_dir)
    assert ct2_model_dir(first) == first  # a pre-converted dir is taken as it is
    assert sorted(n for n in os.listdir(cache) if not n.startswith(".")) == sorted(os.listdir(cache))


def test_a_pre_converted_dir_gives_the_same_beams(model_dir, cache):
    units = inputs(12, seed=3)
    converted = ct2_model_dir(model_dir, cache)
    from_hf = Ct2BeamHandler(options(model_dir, cache))
    from_ct2 = Ct2BeamHandler(options(converted, cache))
    a = list(from_hf.run_inference(units, from_hf.load_model()))
    b = list(from_ct2.run_inference(units, from_ct2.load_model()))
    assert [[(c.text, c.score) for c in x] for x in a] == [[(c.text, c.score) for c in x] for x in b]
    assert {c.generator for x in b for c in x} == {f"ct2:{converted}"}


def test_compute_type_auto_is_int8_on_cpu():
    assert resolve_compute_type("auto", "cpu") == "int8"
    assert resolve_compute_type("float32", "cpu") == "float32"


def halves_without(bad, batch):
    """The batches a run makes of `batch` when only `bad` fails: the whole batch, or each half split the same way."""
    if bad not in batch:
        return [batch]
    if len(batch) == 1:
        return []
    half = len(batch) // 2
    return halves_without(bad, batch[:half]) + halves_without(bad, batch[half:])


def test_halves_without_splits_a_batch_of_seven_down_to_the_bad_unit():
    assert halves_without("x", list("abcxefg")) == [["a", "b", "c"], ["e"], ["f", "g"]]  # abc|xefg, xe|fg, x|e
    assert halves_without("x", list("abxdefg")) == [["a"], ["b"], ["d", "e", "f", "g"]]  # abx|defg, a|bx, b|x


def test_transform_gives_the_same_candidates_in_any_order_and_dead_letters_bad_units(bart_dir, cache):
    units = inputs(30, seed=5)
    opts = options(bart_dir, cache, batch_size=7, bucket_size=3)
    handler = Ct2BeamHandler(opts)
    bundle = handler.load_model()
    bad = SourceText(None, "test", "bad")  # tokenising None fails: only that unit becomes a DeadLetter
    buckets = {}
    for u in units + [bad]:  # 31 units in batches of 7: 5 content buckets
        buckets.setdefault(content_bucket(u.text or "", 5), []).append(u)
    batches = [b for bucket in buckets.values() for b in content_batches(bucket, 7)]
    runs = [halves_without(bad, b) for b in batches]  # the failing batch is retried in halves, down to `bad`
    beams = [beam_ for run in runs for batch in run for beam_ in handler.run_inference(batch, bundle)]
    assert len(beams) == len(units) and sum(len(r) > 1 for r in runs) == 1
    expected = [c for beam_ in beams for c in beam_ if c.text]  # an empty hypothesis is counted, not emitted
    for order in (units + [bad], [bad] + units[::-1]):
        with TestPipeline() as p:
            out = p | beam.Create(order) | Ct2Candidates(opts)
            assert_that(out.candidates, equal_to(expected))
            assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage)), equal_to([("bad", "generate")]),
                        label="dead")
