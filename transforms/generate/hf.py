"""Beam-search hypotheses from any Hugging Face seq2seq model, through RunInference with our own ModelHandler.

Beam's built-in HF handlers import TensorFlow (they fail with transformers 5) and their keyed-tensor generate path
returns wrongly shaped outputs, so this handler owns tokenising, length bucketing and decoding. DAE needs the whole
beam (h1 for its top-1 rule, h_{k-2}..h_k for its bottom rule), hence num_beams = num_return_sequences = k.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.io.filesystems import FileSystems
from apache_beam.ml.inference.base import ModelHandler, RunInference

from entailgen.schemas.records import dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.rank import normalise


DEAD = "dead"


@dataclass(frozen=True)
class HfGenerateOptions:
    """Which model (hub id, local dir or gs:// dir) makes k hypotheses per x, and how big one generate call may get.

    batch_tokens bounds one generate call: sentences x k beams x (longest source + max_new_tokens) tokens.
    """

    model: str
    k: int = 10
    max_new_tokens: int = 24
    batch_tokens: int = 262_144
    max_input_tokens: int = 128
    device: str = "auto"  # auto (CUDA when available), cuda, cpu
    min_batch_size: int = 64
    max_batch_size: int = 4096
    large_model: bool = False  # one copy per worker machine shared by its processes, not one per process
    prefix: str = ""  # task prefix some models expect before x, e.g. "paraphrase: "


@dataclass
class Seq2SeqModel:
    """What load_model hands to run_inference: the model with its tokenizer and device."""

    model: Any
    tokenizer: Any
    device: Any
    name: str


def is_remote(path: str) -> bool:
    """Whether the path names a Beam filesystem (gs://, s3://, hdfs://) rather than a local dir or a hub id."""
    return "://" in path and not path.startswith("file://")


def copy_to_local(path: str, into: Optional[str] = None) -> str:
    """Copy a model directory from any Beam filesystem (gs://...) to a local temp dir, for from_pretrained."""
    into = into or tempfile.mkdtemp(prefix="entailgen-model-")
    root = path.rstrip("/") + "/"
    (matched,) = FileSystems.match([root + "**"])
    if not matched.metadata_list:
        raise FileNotFoundError(f"no model files under {path}")
    for meta in matched.metadata_list:
        target = os.path.join(into, meta.path[len(root):])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with FileSystems.open(meta.path) as src, open(target, "wb") as dst:
            while chunk := src.read(1 << 24):
                dst.write(chunk)
    return into


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
    return Seq2SeqModel(model, tokenizer, device, f"hf:{options.model.rstrip('/')}")


def length_buckets(lengths: Sequence[int], k: int, max_new_tokens: int, batch_tokens: int) -> list[list[int]]:
    """Input indices sorted by length and cut into buckets whose padded beam cost stays within batch_tokens."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    buckets: list[list[int]] = []
    for i in order:  # ascending, so the newest index is the bucket's longest
        if buckets and (len(buckets[-1]) + 1) * k * (lengths[i] + max_new_tokens) <= batch_tokens:
            buckets[-1].append(i)
        else:
            buckets.append([i])
    return buckets


def generate_beams(bundle: Seq2SeqModel, units: Sequence[SourceText],
                   options: HfGenerateOptions) -> list[list[Candidate]]:
    """The k beam hypotheses of each unit, best sequence score first, in the units' order."""
    import torch

    tokenizer, k = bundle.tokenizer, options.k
    encoded = tokenizer([options.prefix + normalise(u.text) for u in units], truncation=True,
                        max_length=options.max_input_tokens)
    ids = encoded["input_ids"]
    beams: list[list[Candidate]] = [[] for _ in units]
    for bucket in length_buckets([len(x) for x in ids], k, options.max_new_tokens, options.batch_tokens):
        features = tokenizer.pad({"input_ids": [ids[i] for i in bucket]}, return_tensors="pt").to(bundle.device)
        with torch.inference_mode():
            out = bundle.model.generate(**features, num_beams=k, num_return_sequences=k, do_sample=False,
                                        max_new_tokens=options.max_new_tokens, output_scores=True,
                                        return_dict_in_generate=True)
        texts = tokenizer.batch_decode(out.sequences, skip_special_tokens=True)
        scores = out.sequences_scores.float().tolist()
        for row, i in enumerate(bucket):
            hypotheses = sorted(zip(texts[row * k:(row + 1) * k], scores[row * k:(row + 1) * k]), key=lambda h: -h[1])
            beams[i] = [Candidate(units[i].source_id, normalise(text), rank, score, bundle.name)
                        for rank, (text, score) in enumerate(hypotheses, start=1)]
    return beams


class Seq2SeqBeamHandler(ModelHandler[SourceText, list, Seq2SeqModel]):
    """RunInference handler: SourceText in, its k-hypothesis beam (list of Candidate, best first) out."""

    def __init__(self, options: HfGenerateOptions):
        super().__init__(min_batch_size=options.min_batch_size, max_batch_size=options.max_batch_size,
                         large_model=options.large_model)
        self.options = options

    def load_model(self) -> Seq2SeqModel:
        return load_seq2seq(self.options)

    def run_inference(self, batch: Sequence[SourceText], model: Seq2SeqModel,
                      inference_args: Optional[dict[str, Any]] = None) -> Iterable[list[Candidate]]:
        return generate_beams(model, batch, self.options)

    def get_num_bytes(self, batch: Sequence[SourceText]) -> int:
        return sum(len(u.text.encode("utf-8")) for u in batch)

    def get_metrics_namespace(self) -> str:
        return "entailgen"


class _SplitBeams(beam.DoFn):
    """Beams -> their non-empty Candidates; failed RunInference batches -> one DeadLetter per unit."""

    def __init__(self):
        self.generated = beam.metrics.Metrics.counter("entailgen", "generated")
        self.empty = beam.metrics.Metrics.counter("entailgen", "generate_empty")
        self.dead = beam.metrics.Metrics.counter("entailgen", "generate_dead")

    def process(self, element):
        if isinstance(element, list):  # a beam
            for candidate in element:
                if candidate.text:
                    self.generated.inc()
                    yield candidate
                else:
                    self.empty.inc()
            return
        batch, (exc_type, exc_repr, _trace) = element  # RunInference's failed_inferences: (batch, error)
        for unit in batch:
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, dead_letter(unit.source, unit.source_id, "generate",
                                                        getattr(exc_type, "__name__", str(exc_type)), exc_repr,
                                                        unit.text))


class GenerateCandidates(beam.PTransform):
    """SourceText x -> Candidate h1..hk by beam search (main output 'candidates') and DeadLetter (output 'dead')."""

    def __init__(self, options: HfGenerateOptions):
        super().__init__()
        self.options = options

    def expand(self, units):
        beams, failed = units | "BeamSearch" >> RunInference(Seq2SeqBeamHandler(self.options)).with_exception_handling()
        return ((beams, failed.failed_inferences)
                | "Merge" >> beam.Flatten()
                | "Split" >> beam.ParDo(_SplitBeams()).with_outputs(DEAD, main="candidates"))
