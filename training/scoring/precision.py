"""The numbers a scorer's model computes in (`--precision`): fp32, or int8 dynamic quantization of the encoder's linear
layers on CPU (weights int8 per tensor, each batch's activations quantized on the fly), whose matmuls run at 2-3x
fp32's rate; the feed-forward's down projections stay fp32 (int8_layers). It buys speed with a small drift of
P(entailed) from fp32's, so a user asks for it: auto never picks it.

onnx-fp32 and onnx-int8 run the same model in ONNX Runtime instead of torch (training.scoring.onnx_runtime: its graph
fused and, for onnx-int8, quantized with the same layers kept fp32), CPU only, one plain pass: MC dropout (--mc-dropout
N) stays on torch (auto runs torch fp32 for it; onnx-* with it is refused in one line).

Training stays fp32 (and bf16 autocast on cuda); only scoring reads this."""
from __future__ import annotations

import warnings

from entailgen.training.scoring.onnx_runtime import ONNX_FP32, ONNX_INT8, ONNX_PRECISIONS, available

AUTO, FP32, INT8 = "auto", "fp32", "int8"
PRECISIONS = (AUTO, FP32, INT8, ONNX_FP32, ONNX_INT8)
CPU_ONLY = (INT8, ONNX_FP32, ONNX_INT8)
AUTO_CPU = ONNX_FP32  # what auto runs on CPU: fp32's scores (to the 4th decimal) from a fused graph, faster than
# torch fp32, most of all on cores that other processes share
INT8_TOLERANCE = 0.05  # the most an int8 probability may differ from fp32's on the tests' tiny model


def resolved_precision(precision: str, device, mc_dropout: int = 0) -> str:
    """The precision a scorer runs for a device and score mode: auto is AUTO_CPU on CPU (torch fp32 with MC dropout,
    whose dropout ONNX Runtime's graph lacks: auto never trades accuracy for speed) and fp32 on cuda (bf16 autocast
    there already); int8 and onnx-* on cuda (their kernels are CPU ones) and onnx-* with MC dropout are refused in one
    line, as is onnx-* where onnxruntime is not installed."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    device_type = getattr(device, "type", str(device).split(":")[0])
    if precision == AUTO:
        if device_type != "cpu":
            return FP32
        return FP32 if mc_dropout or not _onnx_available() else AUTO_CPU  # onnxruntime missing: torch's fp32
    if precision in CPU_ONLY and device_type != "cpu":
        raise ValueError(f"--precision {precision} runs on cpu only; on {device_type} give fp32 or auto")
    if precision in ONNX_PRECISIONS:
        if mc_dropout:
            raise ValueError(f"--precision {precision} runs one plain pass (ONNX Runtime's graph has no dropout); "
                             f"--mc-dropout needs fp32, int8 or auto (torch)")
        if not _onnx_available():
            raise ValueError(f"--precision {precision} needs onnxruntime and onnx (pip install onnxruntime onnx)")
    return precision


def _onnx_available() -> bool:
    return available()


def int8_layers(encoder) -> list[str]:
    """The encoder's linear layers that int8 runs: all but the feed-forward's down projections (those reading the
    GELU's intermediate_size outputs, whose outlier channels one per-batch int8 scale cannot hold: quantized, they
    moved a weakly trained MiniLM's probabilities by up to 0.14, kept fp32 by up to 0.06) and the pooler no model
    reads."""
    import torch

    inner = getattr(encoder.config, "intermediate_size", None)
    return [name for name, m in encoder.named_modules() if isinstance(m, torch.nn.Linear)
            and m.in_features != inner and not name.startswith("pooler")]


def at_precision(model, precision: str):
    """The model with its encoder's linear layers (int8_layers) dynamically quantized to int8 (the classifier head
    stays fp32: it is tiny, and its output is the probability), or the model as it is for fp32."""
    if precision == FP32:
        return model
    if precision != INT8:
        raise ValueError(f"at_precision takes {FP32} or {INT8} (resolved_precision first), got {precision!r}")
    import torch
    from torch.ao.quantization import default_dynamic_qconfig

    with warnings.catch_warnings():  # torch.ao's notice that the API moves to torchao; torch 2.13 still runs it
        warnings.simplefilter("ignore")
        spec = {name: default_dynamic_qconfig for name in int8_layers(model.encoder)}
        model.encoder = torch.ao.quantization.quantize_dynamic(model.encoder, spec, dtype=torch.qint8)
    return model


def load_scoring_model(model_dir, device: str, precision: str, mc_dropout: int = 0):
    """(device, model at its precision, tokenizer, meta, precision) of a model dir (a ModelDir, or a path opened here
    once), its device and precision resolved and its weights loaded once per scorer, its files not checked again; at
    onnx-* the model is an ONNX Runtime session (training.scoring.onnx_runtime.OrtModel) called as a torch model is."""
    from entailgen.training.fitting.model_dir import ModelDir
    from entailgen.training.fitting.models import pick_device  # torch: resolved_precision stays light for the CLI

    device_ = pick_device(device)
    precision = resolved_precision(precision, device_, mc_dropout)  # a bad value refused before the weights load
    opened = ModelDir.open(model_dir)
    model, tokenizer = opened.load(str(device_))
    if precision in ONNX_PRECISIONS:
        from entailgen.training.scoring.onnx_runtime import onnx_model

        return device_, onnx_model(model, opened, opened.meta, precision), tokenizer, opened.meta, precision
    return device_, at_precision(model, precision), tokenizer, opened.meta, precision
