"""Beam-search hypotheses from any Hugging Face seq2seq model: tokenising, length buckets, generate and beam scores,
with no Beam import (the ModelHandler and PTransform over it are hf.py's).

Beam's built-in HF handlers import TensorFlow (they fail with transformers 5) and their keyed-tensor generate path
returns wrongly shaped outputs, so this handler owns tokenising, length bucketing, decoding and beam scores. DAE
needs the whole beam (h1 for its top-1 rule, h_{k-2}..h_k for its bottom rule), hence num_beams =
num_return_sequences = k. Batches come from content (batching.py), not from RunInference bundles, so the same inputs
give the same candidates in any runner mode.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.model_dir import copy_to_local, is_remote
from entailgen.transforms.generate.rank import normalise


@dataclass(frozen=True)
class HfGenerateOptions:
    """Which model (hub id, local dir or gs:// dir) makes k hypotheses per x, and how big one generate call may get.

    batch_tokens bounds one generate call: sentences x k beams x (longest source + max_new_tokens) tokens;
    bucket_size caps its sentences and pad_multiple rounds its source length, so bucket shapes repeat: cuDNN attention
    plans each new shape once, about 1 s on an H100, three times what the bucket then takes to generate.
    max_batch_size is the sentences per content batch. beam_scores says where each beam's score comes from: tracked
    (read off the search as it runs: each step keeps only the log-probs beam search can pick, beam_tracker), generate
    (generate's output_scores, while its per-step score tensors, sentences x k x vocabulary x 4 B x steps, fit
    score_memory; a larger bucket recomputes) or recompute (one teacher-forced pass after the search).
    """

    model: str
    k: int = 10
    max_new_tokens: int = 24
    batch_tokens: int = 1_048_576
    bucket_size: int = 1024
    pad_multiple: int = 8
    max_input_tokens: int = 128
    device: str = "auto"  # auto (CUDA when available), cuda, cpu
    min_batch_size: int = 64
    max_batch_size: int = 4096
    large_model: bool = False  # one copy per worker machine shared by its processes, not one per process
    prefix: str = ""  # task prefix some models expect before x, e.g. "paraphrase: "
    score_memory: int = 1 << 30
    beam_scores: str = "tracked"  # tracked, generate, recompute
    cache_implementation: Optional[str] = None  # None: generate's growing cache; "static": one allocated up front
    compile: bool = False  # torch.compile the decoder (generate's beam search never compiles on its own)


@dataclass
class Seq2SeqModel:
    """What load_model hands to run_inference: the model with its tokenizer and device."""

    model: Any
    tokenizer: Any
    device: Any
    name: str


def load_seq2seq(options: HfGenerateOptions) -> Seq2SeqModel:
    """The model (safetensors only, no remote code) in eval mode: bf16 on CUDA when there is one, else fp32 on CPU."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    if options.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(options.device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    path = copy_to_local(options.model) if is_remote(options.model) else options.model
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    model = AutoModelForSeq2SeqLM.from_pretrained(path, use_safetensors=True, trust_remote_code=False, dtype=dtype)
    model.to(device).eval()
    if options.compile:
        decoder = model.get_decoder()
        decoder.forward = torch.compile(decoder.forward, dynamic=None)
    return Seq2SeqModel(model, tokenizer, device, f"hf:{options.model.rstrip('/')}")


def padded(length: int, multiple: int) -> int:
    """A source length rounded up to the padding multiple."""
    return -(-length // multiple) * multiple


def length_buckets(lengths: Sequence[int], k: int, max_new_tokens: int, batch_tokens: int, size: int = 1 << 30,
                   multiple: int = 1) -> list[list[int]]:
    """Input indices sorted by length and cut into buckets of at most size whose padded beam cost stays within
    batch_tokens."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    buckets: list[list[int]] = []
    for i in order:  # ascending, so the newest index is the bucket's longest
        n = len(buckets[-1]) + 1 if buckets else 0
        if buckets and n <= size and n * k * (padded(lengths[i], multiple) + max_new_tokens) <= batch_tokens:
            buckets[-1].append(i)
        else:
            buckets.append([i])
    return buckets


def score_bytes(sentences: int, k: int, vocab_size: int, steps: int) -> int:
    """What generate's output_scores keeps for a bucket: a float32 vocabulary-wide row per beam per step."""
    return sentences * k * vocab_size * 4 * steps


SCORE_SOURCES = ("tracked", "generate", "recompute")


def beam_tracker(width: int):
    """A logits processor, last in generate's list, that keeps each step's `width` highest processed log-probs (and
    their tokens) of every beam row: beam search keeps the top max(2, 1 + eos tokens) x k of all rows' running score
    plus log-prob, so a token it picks is among its own row's top that many, and the kept values are the ones
    generate sums into the beam's score."""
    from transformers import LogitsProcessor

    class BeamTracker(LogitsProcessor):
        def __init__(self):
            self.values, self.tokens = [], []

        def __call__(self, input_ids, scores):
            values, tokens = scores.topk(min(width, scores.shape[-1]), dim=-1)
            self.values.append(values)
            self.tokens.append(tokens)
            return scores

    return BeamTracker()


def tracked_scores(tracker, sequences, beam_indices, length_penalty: float) -> Optional[list[float]]:
    """Each returned sequence's beam score as generate computes it (the sum of its tokens' processed log-probs over
    its generated length ** length_penalty), from what the tracker kept and generate's beam_indices (the beam row
    each token came from, -1 past the end); None if a token is missing from what was kept, or generate gave no
    beam_indices (then recompute)."""
    import torch

    if beam_indices is None:
        return None
    steps = beam_indices.shape[1]
    if steps == 0 or len(tracker.values) < steps:
        return None
    values = torch.stack(tracker.values[:steps])  # steps x rows x width
    kept = torch.stack(tracker.tokens[:steps])
    valid = beam_indices >= 0
    rows = beam_indices.clamp(min=0)
    step = torch.arange(steps, device=rows.device)[None, :]
    tokens = sequences[:, sequences.shape[1] - steps:]  # after the decoder prompt
    hit = kept[step, rows] == tokens[..., None]  # sequences x steps x width
    if not bool((hit.any(-1) | ~valid).all()):
        return None
    logp = torch.where(hit, values[step, rows], 0.0).sum(-1)
    total = torch.where(valid, logp, 0.0).sum(1)
    return (total / valid.sum(1).float() ** length_penalty).tolist()


def beam_scores(bundle: Seq2SeqModel, encoded, mask, sequences, k: int, max_new_tokens: int,
                chunk: int = 1024) -> list[float]:
    """Each returned sequence's beam score (sum of its token log-probs over length ** length_penalty), in one
    teacher-forced pass: asking generate for it (output_scores) keeps a vocabulary-wide score tensor for every step,
    which at large batches fills the GPU. A token generate forces (BOS first, EOS at step max_new_tokens) counts 0,
    as in generate; other logits processors (repetition penalty) are not replayed, so with those the score can
    differ from generate's, never the beam order. encoded is the encoder output generate already used, so the
    sources are not encoded twice."""
    import torch

    model, config = bundle.model, bundle.model.generation_config
    eos_id = config.eos_token_id if config.eos_token_id is not None else model.config.eos_token_id
    length_penalty = 1.0 if config.length_penalty is None else config.length_penalty  # generate's own default
    hidden = encoded.last_hidden_state.repeat_interleave(k, 0)
    mask = mask.repeat_interleave(k, 0)
    tokens = sequences[:, 1:]  # after the decoder start token
    eos = torch.isin(tokens, torch.tensor(eos_id, device=tokens.device).reshape(-1))
    counted = (eos.cumsum(1) - eos.int()) == 0  # up to and including the first eos
    forced = torch.zeros(tokens.shape[1], dtype=torch.bool, device=tokens.device)
    if config.forced_bos_token_id is not None:
        forced[0] = True
    if config.forced_eos_token_id is not None and tokens.shape[1] == max_new_tokens:
        forced[-1] = True
    scores = []
    for start in range(0, len(sequences), chunk):
        end = start + chunk
        logits = model(encoder_outputs=(hidden[start:end],), attention_mask=mask[start:end],
                       decoder_input_ids=sequences[start:end, :-1], use_cache=False).logits
        logp = logits.float().log_softmax(-1).gather(-1, tokens[start:end, :, None]).squeeze(-1)
        total = torch.where(counted[start:end] & ~forced, logp, 0.0).sum(1)
        scores.append(total / counted[start:end].sum(1).float() ** length_penalty)
    return torch.cat(scores).tolist()


def generate_beams(bundle: Seq2SeqModel, units: Sequence[SourceText],
                   options: HfGenerateOptions) -> list[list[Candidate]]:
    """The k beam hypotheses of each unit, in beam order (best first), in the units' order."""
    import torch
    from transformers import LogitsProcessorList

    if options.beam_scores not in SCORE_SOURCES:
        raise ValueError(f"beam_scores takes {', '.join(SCORE_SOURCES)}, got {options.beam_scores!r}")
    tokenizer, k = bundle.tokenizer, options.k
    config, vocab_size = bundle.model.generation_config, bundle.model.config.vocab_size
    eos = config.eos_token_id if config.eos_token_id is not None else bundle.model.config.eos_token_id
    width = max(2, 1 + len(eos if isinstance(eos, list) else [eos] if eos is not None else [])) * k
    length_penalty = 1.0 if config.length_penalty is None else config.length_penalty
    encoded = tokenizer([options.prefix + normalise(u.text) for u in units], truncation=True,
                        max_length=options.max_input_tokens)
    ids = encoded["input_ids"]
    beams: list[list[Candidate]] = [[] for _ in units]
    for bucket in length_buckets([len(x) for x in ids], k, options.max_new_tokens, options.batch_tokens,
                                 options.bucket_size, options.pad_multiple):
        features = tokenizer.pad({"input_ids": [ids[i] for i in bucket]}, pad_to_multiple_of=options.pad_multiple,
                                 return_tensors="pt").to(bundle.device)
        source = options.beam_scores
        if source == "generate" and score_bytes(len(bucket), k, vocab_size,
                                                options.max_new_tokens) > options.score_memory:
            source = "recompute"
        tracker = beam_tracker(width) if source == "tracked" else None
        with torch.inference_mode():
            encoded = bundle.model.get_encoder()(**features)
            out = bundle.model.generate(**features, encoder_outputs=copy.copy(encoded),  # it expands its copy
                                        num_beams=k, num_return_sequences=k, do_sample=False,
                                        max_new_tokens=options.max_new_tokens, return_dict_in_generate=True,
                                        output_scores=source == "generate",
                                        cache_implementation=options.cache_implementation,
                                        logits_processor=LogitsProcessorList([tracker] if tracker else []))
            sequences = out.sequences
            scores = None
            if source == "generate":
                scores = out.sequences_scores.float().tolist()
            elif tracker is not None:
                scores = tracked_scores(tracker, sequences, out.beam_indices, length_penalty)
            if scores is None:
                scores = beam_scores(bundle, encoded, features["attention_mask"], sequences, k,
                                     options.max_new_tokens)
        texts = tokenizer.batch_decode(sequences, skip_special_tokens=True)
        for row, i in enumerate(bucket):
            beams[i] = [Candidate(units[i].source_id, normalise(texts[row * k + r]), r + 1, scores[row * k + r],
                                  bundle.name) for r in range(k)]
    return beams
