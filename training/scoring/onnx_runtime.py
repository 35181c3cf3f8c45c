"""ONNX Runtime as a scorer's runtime on CPU: a runtime adapter, kept apart from the model code (as Beam's
RunInference keeps its framework handlers apart from the models). A trained model (encoder and head, as
training.fitting.models builds it) is exported once to ONNX with torch's TorchScript exporter, its BERT subgraphs fused
(onnxruntime.transformers.optimizer: the embeddings with their LayerNorm, attention, LayerNorm with the residual add,
GELU with its bias), and, for
onnx-int8, its encoder's matmuls dynamically quantized to int8 with the same layers kept fp32 as torch's int8
(training.scoring.precision.int8_layers: the feed-forward's down projections and the head). ORT's numbers are not
torch's: onnx-fp32 stays within FP32_TOLERANCE of torch fp32, onnx-int8 within precision.INT8_TOLERANCE.

The exported graph is cached outside the model dir (a model dir may be read-only or shared): one file per model
checksum, precision, onnxruntime version and this module's code, under ~/.cache/entailgen/onnx ($XDG_CACHE_HOME;
$ENTAILGEN_ONNX_CACHE instead where set), written atomically, safe to delete. Scoring only: one plain eval pass, no
dropout (MC dropout stays on torch)."""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import tempfile
import warnings

ONNX_FP32, ONNX_INT8 = "onnx-fp32", "onnx-int8"  # the precisions it runs (training.scoring.precision offers them)
ONNX_PRECISIONS = (ONNX_FP32, ONNX_INT8)

FP32_TOLERANCE = 1e-5  # the most an onnx-fp32 probability may differ from torch fp32's on the tests' tiny model
OPSET = 17
CACHE_ENV = "ENTAILGEN_ONNX_CACHE"  # where the graphs go instead of ~/.cache/entailgen/onnx
PAIR_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
DAE_INPUTS = PAIR_INPUTS + ("child", "head", "relation")


def available() -> bool:
    """Whether onnxruntime imports here (setup.py installs it; a hand-made environment may lack it)."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None and importlib.util.find_spec("onnx") is not None


def _code_sha256() -> str:
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cached_graph(model_dir: str, precision: str) -> str:
    """The path of a model's exported graph at a precision: named by the model's checksums (its weights where it has
    none), the precision, onnxruntime's version and this module's code, so a model trained again into the same folder,
    or another exporter, never reads the graph of before."""
    import onnxruntime

    from entailgen.training.fitting.checkpoint import WEIGHTS, file_sha256
    from entailgen.training.scoring.summac import model_checksums
    from entailgen.transforms.io.paths import user_cache

    model = model_checksums(model_dir) or file_sha256(os.path.join(model_dir, WEIGHTS))  # a ModelDir's: no hashing
    model_dir = os.path.normpath(os.fspath(model_dir))
    name = (f"{os.path.basename(model_dir)}-{model[:12]}-{precision}-ort{onnxruntime.__version__}-"
            f"{_code_sha256()[:8]}.onnx")
    return os.path.join(os.environ.get(CACHE_ENV) or user_cache("onnx"), name)


def _export(model, task: str, path: str) -> None:
    """The torch model's forward (logits) as an ONNX graph, batch and length (and arcs) dynamic."""
    import torch

    names = DAE_INPUTS if task == "dae" else PAIR_INPUTS
    ids = torch.tensor([[2, 5, 6, 3, 7, 3], [2, 5, 6, 3, 0, 0]])
    example = {"input_ids": ids, "attention_mask": (ids > 0).long(), "token_type_ids": torch.zeros_like(ids),
               "child": torch.tensor([[1, 2], [1, 0]]), "head": torch.tensor([[2, 1], [0, 1]]),
               "relation": torch.tensor([[0, 0], [0, 0]])}
    axes = {name: {0: "batch", 1: "arcs" if name in ("child", "head", "relation") else "tokens"} for name in names}
    axes["logits"] = {0: "batch", 1: "arcs"} if task == "dae" else {0: "batch"}
    model.eval()
    if hasattr(model.encoder, "set_attn_implementation"):
        model.encoder.set_attn_implementation("eager")  # the graph ORT's attention fusion matches (sdpa's does not)
    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice and its tracer's warnings
        torch.onnx.export(model, tuple(example[n] for n in names), path, input_names=list(names),
                          output_names=["logits"], dynamic_axes=axes, opset_version=OPSET, dynamo=False)


def _fuse(path: str, config) -> None:
    """BERT fusions in place: LayerNormalization with its residual add (SkipLayerNormalization), GELU with its bias
    (BiasGelu), the attention's matmuls, scale, mask and softmax (Attention)."""
    from onnxruntime.transformers.optimizer import optimize_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = optimize_model(path, model_type="bert", num_heads=config.num_attention_heads,
                               hidden_size=config.hidden_size, opt_level=0, use_gpu=False)
        fused.save_model_to_file(path)


def _int8_nodes(path: str, config) -> list[str]:
    """The graph's MatMul and Attention nodes that int8 runs: those whose weights are the encoder's (hidden x hidden,
    hidden x intermediate, the fused attention's hidden x 3 hidden); not the feed-forward's down projections (weights
    intermediate x hidden: training.scoring.precision.int8_layers) nor the head."""
    import onnx

    graph = onnx.load(path, load_external_data=False).graph
    shapes = {init.name: tuple(init.dims) for init in graph.initializer}
    hidden, inner = config.hidden_size, config.intermediate_size
    keep = {(hidden, hidden), (hidden, inner), (hidden, 3 * hidden)}
    return [node.name for node in graph.node if node.op_type in ("MatMul", "Attention")
            and any(shapes.get(name) in keep for name in node.input[1:2])]


def _quantize(path: str, config) -> None:
    """Dynamic int8 (weights int8 per tensor, activations quantized per batch) on _int8_nodes, in place."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    nodes = _int8_nodes(path, config)
    if not nodes:
        raise RuntimeError(f"{path}: no encoder matmul found to quantize")
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        out = os.path.join(tmp, "int8.onnx")
        quantize_dynamic(path, out, op_types_to_quantize=["MatMul", "Attention"], nodes_to_quantize=nodes,
                         weight_type=QuantType.QInt8, extra_options={"MatMulConstBOnly": True,
                                        "DefaultTensorType": onnx.TensorProto.FLOAT})  # types a fused op hides
        os.replace(out, path)


@contextlib.contextmanager
def _quiet():
    """onnxruntime's tools log and print their progress (the fusions found, a pre-processing hint): not the user's."""
    logging.disable(logging.WARNING)
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            yield
    finally:
        logging.disable(logging.NOTSET)


def build_graph(model, task: str, config, precision: str, path: str) -> None:
    """Export, fuse and (onnx-int8) quantize a model to path, atomically (a killed run leaves no half graph)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as tmp, _quiet():
        part = os.path.join(tmp, "model.onnx")
        _export(model, task, part)
        _fuse(part, config)
        if precision == ONNX_INT8:
            _quantize(part, config)
        os.replace(part, path)


class OrtModel:
    """An ONNX Runtime session called as training.fitting.models.forward calls a torch model: model(**batch) -> logits
    (a torch tensor); inputs the graph does not read (labels, arc_mask) are left out. One plain pass: no dropout."""

    def __init__(self, path: str, task: str, threads: int):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads  # what torch runs: the same cores, a count the load does not set
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.task, self.path = task, path

    def forward(self, **batch):
        import torch

        feed = {name: batch[name].cpu().numpy() for name in self.inputs}
        return torch.from_numpy(self.session.run(["logits"], feed)[0])

    def __call__(self, **batch):
        return self.forward(**batch)

    def eval(self):
        return self


def onnx_model(model, model_dir, meta: dict, precision: str) -> OrtModel:
    """The ORT session of a trained torch model at onnx-fp32 or onnx-int8, its graph built once and cached
    (cached_graph)."""
    import torch

    try:
        path = cached_graph(model_dir, precision)
        if not os.path.isfile(path):
            build_graph(model, meta["task"], model.encoder.config, precision, path)
    except OSError as e:  # no home folder, or a cache that cannot be written: the graph built for this load alone
        print(f"warning: cannot keep the ONNX graph in the cache ({e.strerror or e}); built for this run only",
              file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as tmp:  # the session holds the graph once made: the file can go
            path = os.path.join(tmp, "model.onnx")
            build_graph(model, meta["task"], model.encoder.config, precision, path)
            return OrtModel(path, meta["task"], torch.get_num_threads())
    return OrtModel(path, meta["task"], torch.get_num_threads())
