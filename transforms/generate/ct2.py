"""Beam search with a CTranslate2-converted seq2seq model as a Beam ModelHandler and a PTransform over content batches.

Conversion, decoding settings and the search are ct2_core's, which needs no Beam, so a bench or a GPU node without
Beam runs the same code.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

from apache_beam.ml.inference.base import ModelHandler

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.batching import BeamSearchCandidates
from entailgen.transforms.generate.ct2_core import (COMPUTE_TYPES, PATIENCE, Ct2GenerateOptions, Ct2Model, convert,
                                                    ct2_model_dir, decoding_settings, is_ct2_dir, load_ct2,
                                                    model_digest, resolve_compute_type, resolve_device,
                                                    translate_beams, with_forced_eos)

__all__ = ["COMPUTE_TYPES", "PATIENCE", "Ct2BeamHandler", "Ct2Candidates", "Ct2GenerateOptions", "Ct2Model", "convert",
           "ct2_model_dir", "decoding_settings", "is_ct2_dir", "load_ct2", "model_digest", "resolve_compute_type",
           "resolve_device", "translate_beams", "with_forced_eos"]


class Ct2BeamHandler(ModelHandler[SourceText, list, Ct2Model]):
    """Model handler (content batches, or RunInference): SourceText in, its k-hypothesis beam out."""

    def __init__(self, options: Ct2GenerateOptions):
        super().__init__()
        self.options = options

    def load_model(self) -> Ct2Model:
        return load_ct2(self.options)

    def run_inference(self, batch: Sequence[SourceText], model: Ct2Model,
                      inference_args: Optional[dict[str, Any]] = None) -> Iterable[list[Candidate]]:
        return translate_beams(model, batch, self.options)

    def get_num_bytes(self, batch: Sequence[SourceText]) -> int:
        return sum(len(u.text.encode("utf-8")) for u in batch)

    def get_metrics_namespace(self) -> str:
        return "entailgen"


class Ct2Candidates(BeamSearchCandidates):
    """SourceText x -> Candidate h1..hk by CTranslate2 beam search over content batches (main output 'candidates')
    and DeadLetter (output 'dead')."""

    def __init__(self, options: Ct2GenerateOptions):
        super().__init__(Ct2BeamHandler(options), options.batch_size)
        self.options = options
