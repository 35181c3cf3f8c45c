"""Beam search with a Hugging Face seq2seq model as a Beam ModelHandler and a PTransform over content batches.

The search itself (tokenising, length buckets, generate, beam scores) is hf_core's, which needs no Beam, so a bench or
a GPU node without Beam runs the same code.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

from apache_beam.ml.inference.base import ModelHandler

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.batching import BeamSearchCandidates
from entailgen.transforms.generate.hf_core import (SCORE_SOURCES, HfGenerateOptions, Seq2SeqModel, beam_scores,
                                                   beam_tracker, generate_beams, length_buckets, load_seq2seq, padded,
                                                   score_bytes, tracked_scores)

__all__ = ["GenerateCandidates", "HfGenerateOptions", "SCORE_SOURCES", "Seq2SeqBeamHandler", "Seq2SeqModel",
           "beam_scores", "beam_tracker", "generate_beams", "length_buckets", "load_seq2seq", "padded", "score_bytes",
           "tracked_scores"]


class Seq2SeqBeamHandler(ModelHandler[SourceText, list, Seq2SeqModel]):
    """Model handler (content batches, or RunInference): SourceText in, its k-hypothesis beam (list of Candidate, best first) out."""

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


class GenerateCandidates(BeamSearchCandidates):
    """SourceText x -> Candidate h1..hk by beam search over content batches (main output 'candidates') and
    DeadLetter (output 'dead')."""

    def __init__(self, options: HfGenerateOptions):
        super().__init__(Seq2SeqBeamHandler(options), options.max_batch_size)
        self.options = options
