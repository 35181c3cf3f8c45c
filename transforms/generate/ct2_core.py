"""Beam-search hypotheses from a seq2seq model run by CTranslate2, a C++ engine made for batched beam search (no Beam
import: the ModelHandler and PTransform over it are ct2.py's).

The model is a Hugging Face seq2seq dir, hub id or gs:// dir (BART, T5, Marian, Pegasus: what CTranslate2's
TransformersConverter supports), converted once per worker into a local cache keyed by the model files' sha256, or a
directory CTranslate2 already converted. Decoding replays what HF generate does, so the beams and scores are the
same in fp32: the decoder starts from the model's decoder_start_token_id (BART: eos; T5: pad), a forced BOS becomes
the target prefix, EOS is allowed from the first step (min_decoding_length=0), a forced EOS (bart-base's
forced_eos_token_id) ends the beams one step before the limit (with_forced_eos), and scores are the summed token
log-probs over length ** length_penalty, as generate's sequences_scores; the search goes on past the first k
ended hypotheses (PATIENCE), as generate's does. max_new_tokens counts what generate's does: every token after the
decoder start, the forced BOS and the end token included.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.model_dir import copy_to_local, is_remote
from entailgen.transforms.generate.rank import normalise
from entailgen.transforms.io.paths import user_cache

log = logging.getLogger(__name__)

COMPUTE_TYPES = ("auto", "default", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16",
                 "bfloat16", "float32")
WEIGHT_FILES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".ckpt")
# CTranslate2 stops a beam search once beam_size x patience hypotheses have ended; HF generate (early_stopping=False)
# goes on while a running beam could still beat them. With 1, beams that end early crowd out longer, better ones
# (64 % of tiny-T5 beams matched HF's); from 2 on, 100 % (T5) and 98 % (BART) matched.
PATIENCE = 2
# generate settings CTranslate2 has no equivalent for: with them set, beams can differ from HF's
NOT_REPLAYED = ("early_stopping", "min_length", "diversity_penalty", "num_beam_groups")


@dataclass(frozen=True)
class Ct2GenerateOptions:
    """Which model makes k hypotheses per x, on which device and compute type (auto: int8 on CPU, bfloat16 or
    float16 on GPU), in content batches of batch_size sentences that CTranslate2 cuts into bucket_size ones."""

    model: str
    k: int = 10
    max_new_tokens: int = 24
    compute_type: str = "auto"
    device: str = "auto"  # auto (CUDA when CTranslate2 sees a GPU), cuda, cpu
    batch_size: int = 4096
    bucket_size: int = 1024
    max_input_tokens: int = 128
    prefix: str = ""  # task prefix some models expect before x, e.g. "paraphrase: "
    cache_dir: Optional[str] = None  # converted models; default ~/.cache/entailgen/ct2
    threads: int = 0  # CPU threads per translation (0: CTranslate2's default)


@dataclass
class Ct2Model:
    """What load_model hands to run_inference: the translator, the HF tokenizer and the decoding settings."""

    translator: Any
    tokenizer: Any
    decoding: dict = field(default_factory=dict)
    target_prefix: Optional[list] = None
    name: str = ""
    forced_eos: Optional[str] = None  # the end token generate forces at its last step, if any


def is_ct2_dir(path: str) -> bool:
    """Whether a local dir holds a CTranslate2 model (model.bin beside a config.json without HF's model_type)."""
    config = os.path.join(path, "config.json")
    if not (os.path.isfile(os.path.join(path, "model.bin")) and os.path.isfile(config)):
        return False
    with open(config, encoding="utf-8") as f:
        return "model_type" not in json.load(f)


def model_digest(path: str) -> str:
    """sha256 over a model dir's file names and contents: the cache key of its conversion."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            full = os.path.join(root, name)
            digest.update(os.path.relpath(full, path).encode("utf-8") + b"\0")
            with open(full, "rb") as f:
                while chunk := f.read(1 << 24):
                    digest.update(chunk)
            digest.update(b"\0")
    return digest.hexdigest()


def convertible_copy(path: str, into: str) -> str:
    """The model dir as the converter can read it: links to its files, and a config.json given the
    `normalize_before: false` that CTranslate2 4.8's BART loader reads but transformers 5 no longer writes. The
    user's dir is never changed."""
    for name in os.listdir(path):
        if name != "config.json":
            os.symlink(os.path.abspath(os.path.join(path, name)), os.path.join(into, name))
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("model_type") == "bart":
        config.setdefault("normalize_before", False)
    with open(os.path.join(into, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    return into


def convert(path: str, cache_dir: str) -> str:
    """A local HF model dir converted to CTranslate2 (float32 weights; the compute type is chosen at load) under
    cache_dir/<sha256>, converting only when that entry is missing. Tokenizer and generation config files are
    copied beside it. Written to a temp name and renamed, so concurrent workers never see half a model."""
    from ctranslate2.converters import TransformersConverter

    class SafeConverter(TransformersConverter):
        def load_model(self, model_class, model_name_or_path, **kwargs):
            kwargs.update(use_safetensors=True, trust_remote_code=False)
            model = model_class.from_pretrained(model_name_or_path, **kwargs)
            if getattr(model.config, "scale_decoder_outputs", None) is False:
                # transformers 5 always sets T5's tie_word_embeddings and moved "do not scale the decoder output"
                # (untied T5 v1.1 / flan-t5) to scale_decoder_outputs, which CTranslate2 4.8 does not read
                model.config.tie_word_embeddings = False
            return model

    target = os.path.join(cache_dir, model_digest(path))
    if os.path.isfile(os.path.join(target, "model.bin")):
        return target
    os.makedirs(cache_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".converting-", dir=cache_dir)
    try:
        source = os.path.join(work, "source")
        os.mkdir(source)
        convertible_copy(path, source)
        out = os.path.join(work, "model")
        SafeConverter(source).convert(out)
        for name in os.listdir(path):
            if name != "config.json" and not name.endswith(WEIGHT_FILES) and os.path.isfile(os.path.join(path, name)):
                shutil.copy(os.path.join(path, name), os.path.join(out, name))
        try:
            os.rename(out, target)
        except OSError:  # another process converted it first
            if not os.path.isfile(os.path.join(target, "model.bin")):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def local_model(model: str) -> str:
    """A local dir for the model: gs:// and other remote dirs copied, hub ids downloaded (safetensors only)."""
    if is_remote(model):
        return copy_to_local(model)
    if os.path.isdir(model):
        return model
    from huggingface_hub import snapshot_download

    return snapshot_download(model, allow_patterns=["*.json", "*.safetensors", "*.model", "*.txt"])


def ct2_model_dir(model: str, cache_dir: Optional[str] = None) -> str:
    """The CTranslate2 dir for any accepted model: a pre-converted one as is, anything else converted (cached)."""
    path = local_model(model)
    if is_ct2_dir(path):
        return path
    return convert(path, cache_dir or user_cache("ct2"))


def resolve_device(device: str) -> str:
    """cuda when asked, or when auto and CTranslate2 sees a GPU; else cpu."""
    import ctranslate2

    if device == "auto":
        return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    return device


def resolve_compute_type(compute_type: str, device: str) -> str:
    """auto: int8 on CPU, bfloat16 on a GPU that supports it, else float16."""
    import ctranslate2

    if compute_type != "auto":
        return compute_type
    if device == "cpu":
        return "int8"
    return "bfloat16" if "bfloat16" in ctranslate2.get_supported_compute_types(device) else "float16"


def decoding_settings(path: str, tokenizer) -> tuple[dict, Optional[list], Optional[str]]:
    """translate_batch settings that replay the model's generation config, the forced-BOS target prefix and the
    forced EOS token."""
    from transformers import GenerationConfig

    try:
        config = GenerationConfig.from_pretrained(path)
    except OSError:  # a pre-converted dir without generation_config.json: generate's defaults
        config = GenerationConfig()
    settings = {"length_penalty": 1.0 if config.length_penalty is None else float(config.length_penalty),
                "repetition_penalty": float(config.repetition_penalty or 1.0),
                "no_repeat_ngram_size": int(config.no_repeat_ngram_size or 0)}
    ignored = [name for name in NOT_REPLAYED if getattr(config, name, None) not in (None, False, 0, 1)]
    if ignored:
        log.warning("CTranslate2 does not replay generation settings %s; beams may differ from HF generate's", ignored)
    forced = config.forced_bos_token_id
    prefix = None if forced is None else tokenizer.convert_ids_to_tokens([forced])
    forced_eos = config.forced_eos_token_id
    if isinstance(forced_eos, list):  # generate forces the first of several
        forced_eos = forced_eos[0] if forced_eos else None
    if forced_eos is not None and forced_eos != tokenizer.eos_token_id:
        log.warning("CTranslate2 cannot force token %s, not the end token, at the last step; beams may differ from "
                    "HF generate's", forced_eos)
        forced_eos = None
    return settings, prefix, None if forced_eos is None else tokenizer.convert_ids_to_tokens(forced_eos)


def load_ct2(options: Ct2GenerateOptions) -> Ct2Model:
    """The converted model on its device and compute type, with its HF tokenizer (no remote code)."""
    import ctranslate2
    from transformers import AutoTokenizer

    path = ct2_model_dir(options.model, options.cache_dir)
    device = resolve_device(options.device)
    compute_type = resolve_compute_type(options.compute_type, device)
    translator = ctranslate2.Translator(path, device=device, compute_type=compute_type,
                                       intra_threads=options.threads)
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    settings, prefix, forced_eos = decoding_settings(path, tokenizer)
    return Ct2Model(translator, tokenizer, settings, prefix, f"ct2:{options.model.rstrip('/')}", forced_eos)


def with_forced_eos(hypotheses: Sequence[list], scores: Sequence[float], eos: str,
                    length_penalty: float) -> list[tuple[list, float]]:
    """The hypotheses of a search stopped one step early, as generate ends them when it forces EOS at its last step:
    a hypothesis that did not end gets that EOS, whose log-prob (0, forced) adds nothing to its sum but one to its
    length, so its score becomes sum / (length + 1) ** length_penalty; ranked again, best first."""
    ended = []
    for tokens, score in zip(hypotheses, scores):
        if not tokens or tokens[-1] != eos:
            score = score * len(tokens) ** length_penalty / (len(tokens) + 1) ** length_penalty
            tokens = list(tokens) + [eos]
        ended.append((tokens, score))
    return sorted(ended, key=lambda pair: -pair[1])


def translate_beams(bundle: Ct2Model, units: Sequence[SourceText], options: Ct2GenerateOptions) -> list[list[Candidate]]:
    """The k beam hypotheses of each unit, best first, in the units' order."""
    tokenizer, k = bundle.tokenizer, options.k
    ids = tokenizer([options.prefix + normalise(u.text) for u in units], truncation=True,
                    max_length=options.max_input_tokens)["input_ids"]
    results = bundle.translator.translate_batch(
        [tokenizer.convert_ids_to_tokens(x) for x in ids], max_batch_size=options.bucket_size,
        beam_size=k, num_hypotheses=k, patience=PATIENCE, return_scores=True, return_end_token=True,
        max_decoding_length=max(1, options.max_new_tokens - (bundle.forced_eos is not None)), min_decoding_length=0,
        target_prefix=None if bundle.target_prefix is None else [bundle.target_prefix] * len(ids),
        **bundle.decoding)
    beams = []
    for unit, result in zip(units, results):
        ranked = list(zip(result.hypotheses, result.scores))
        if bundle.forced_eos is not None:
            ranked = with_forced_eos(result.hypotheses, result.scores, bundle.forced_eos,
                                     bundle.decoding["length_penalty"])
        texts = tokenizer.batch_decode([tokenizer.convert_tokens_to_ids(h) for h, _ in ranked],
                                       skip_special_tokens=True)
        beams.append([Candidate(unit.source_id, normalise(text), rank, float(score), bundle.name)
                      for rank, (text, (_, score)) in enumerate(zip(texts, ranked), start=1)])
    return beams
