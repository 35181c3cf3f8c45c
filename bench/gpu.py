"""Every GPU figure in one call (issue 57): beam search, training and scoring at their real shapes, one JSON file.

Random-weight models of the real shapes are built on the spot (nothing carried but the code): BART-base for beam
search, MiniLM-L6 and mpnet-base encoders for training and scoring. In one process:

- generation: the plain model.generate loop with beam scores (bench/generate.py's baseline), the hf handler
  (hf_core.generate_beams, each variant of HF_VARIANTS) and ct2 (ct2_core.translate_beams, each --ct2-compute-type),
  N sentences, k beams, --max-new-tokens; sentences/s, the ratio to the loop, and the beams against the loop's;
- training: examples/s of `fit` (DAE arc model, pair model; the DAE model again with --grad-accum 4) at each encoder
  shape, one process, Accelerate's bf16 autocast on cuda;
- scoring: rows/s of DocumentScorer (SummaC-ZS, sentence blocks) on fixed synthetic documents, fp32 and bf16;
- machine: GPU, driver, CUDA, versions, CPU count, what is missing and what ran on the CPU.

The JSON is rewritten after every figure, so a run stopped at its limit still leaves what it measured; --budget-s
skips what would not finish in time, recording why. --dry-run: tiny shapes on CPU in seconds (tests/bench runs it).

    python bench/gpu.py                       # on the GPU node (make bench-gpu); writes $OUT/bench-gpu.json
    python bench/gpu.py --dry-run --out /tmp/b.json
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/generate.py, beside this script

SECTIONS = ("machine", "generation", "training", "scoring")
# the beam-score tolerance by the precision the search runs in (a sum of log-probs over the length)
TOLERANCE = {"float32": 1e-4, "bfloat16": 0.05, "float16": 0.05, "int8": 0.1}
# hf handler variants timed side by side (name -> HfGenerateOptions fields): the default (scores read off the search)
# and the scores recomputed in a teacher-forced pass (the code behind the 0.85x of 2026-11-23)
HF_VARIANTS = {"default": {}, "recompute": {"beam_scores": "recompute"}}
# tried last, each stopped at its share of the time left: a static KV cache, and the decoder under torch.compile
# (generate's beam search never compiles by itself; the first calls compile, untimed, during the warm-up)
HF_EXTRAS = {"static-cache": {"cache_implementation": "static"},
             "static-cache+compile": {"cache_implementation": "static", "compile": True}}
PEAKED_STD = 0.2  # init_std of the model the beams are checked on again (generation.beams_peaked)
RESERVE_S = 100  # seconds kept for training and scoring after generation's extras (about 60 s by estimate)
OPTIONAL = ("ctranslate2", "apache_beam", "spacy", "pyarrow", "numpy")


def default_out() -> str:
    """$OUT/bench-gpu.json where OUT is set (the device machine brings back what is written there), else out/."""
    return os.path.join(os.environ.get("OUT") or "out", "bench-gpu.json")


class Report:
    """The JSON under construction, written whole (to a temp name, then renamed) after every change."""

    def __init__(self, path: str, budget_s: float):
        self.path, self.budget_s, self.started = path, budget_s, time.perf_counter()
        self.data: dict = {"bench": "gpu", "budget_s": budget_s, "complete": False}
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def left(self) -> float:
        return self.budget_s - self.elapsed()

    def put(self, section: str, key: str, value) -> None:
        self.data.setdefault(section, {})[key] = value
        self.save()

    def save(self) -> None:
        self.data["elapsed_s"] = round(self.elapsed(), 1)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.data, f, indent=2)
        os.replace(tmp, self.path)
        print(f"[{self.elapsed():6.1f} s] {self.path} updated", file=sys.stderr, flush=True)


def error_of(exc: BaseException) -> str:
    """One line naming the exception, for the JSON."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:500]


class Stopped(Exception):
    """A figure ran past its cap (guarded's cap_s)."""


@contextlib.contextmanager
def capped(seconds: Optional[float]):
    """Stop the code inside after `seconds` (SIGALRM, main thread; None: no cap): a compile that runs long must not
    cost the figures after it."""
    if seconds is None:
        yield
        return

    def stop(signum, frame):
        raise Stopped(f"stopped at its cap of {seconds:.0f} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def guarded(report: Report, section: str, key: str, fn, need_s: float = 0.0, cap_s: Optional[float] = None):
    """fn()'s result recorded under section.key; an error, a budget too short or a cap reached (cap_s) recorded as
    the reason instead."""
    if report.left() < need_s:
        report.put(section, key, {"skipped": f"time budget: {report.left():.0f} s left, about {need_s:.0f} s needed"})
        return None
    try:
        with capped(cap_s):
            result = fn()
    except Exception as exc:  # one figure failing must not cost the others
        traceback.print_exc()
        report.put(section, key, {"error": error_of(exc)})
        with contextlib.suppress(Exception):
            import torch

            torch.cuda.empty_cache()
        return None
    report.put(section, key, result)
    return result


def missing(module: str) -> str | None:
    """None when the module imports, else why not."""
    try:
        importlib.import_module(module)
        return None
    except Exception as exc:  # ImportError, or a broken binary
        return error_of(exc)


# ---- machine --------------------------------------------------------------------------------------------------------

def machine(device) -> dict:
    """What ran this: GPU, driver, CUDA, library versions, CPUs, and the optional modules that are absent."""
    import torch
    import transformers

    info = {"python": platform.python_version(), "platform": platform.platform(), "cpu_count": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "transformers": transformers.__version__, "device": str(device),
            "missing": {m: why for m in OPTIONAL if (why := missing(m))}}
    for name in ("ctranslate2", "numpy", "tokenizers"):
        with contextlib.suppress(Exception):
            info[name] = importlib.import_module(name).__version__
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(gpu=torch.cuda.get_device_name(device), gpu_memory_gib=round(props.total_memory / 2 ** 30, 1),
                    capability=".".join(map(str, torch.cuda.get_device_capability(device))),
                    cudnn=torch.backends.cudnn.version())
        with contextlib.suppress(Exception):
            info["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                            capture_output=True, text=True, timeout=20).stdout.strip()
    if "ctranslate2" not in info["missing"]:
        import ctranslate2

        info["ct2_cuda_devices"] = ctranslate2.get_cuda_device_count()
        with contextlib.suppress(Exception):
            info["ct2_cuda_compute_types"] = sorted(ctranslate2.get_supported_compute_types("cuda"))
    return info


# ---- generation -----------------------------------------------------------------------------------------------------

def generation(report: Report, args, device, work: str) -> None:
    """The loop, each hf variant and each ct2 compute type on the same N inputs: a rate, a ratio, a beam check each."""
    import torch

    import generate as gen
    from entailgen.transforms.generate.hf_core import HfGenerateOptions, generate_beams, load_seq2seq

    section = "generation"
    path = os.path.join(work, "bart")
    gen.save_random_model(path, args.dry_run, args.seed)
    options = HfGenerateOptions(model=path, k=args.k, max_new_tokens=args.max_new_tokens, device=device.type,
                                max_batch_size=args.handler_batch)
    bundle = load_seq2seq(options)
    if args.hf_float32:  # the loop and hf in float32 on cuda too: ct2 float32 is then checked beam for beam
        bundle.model.float()
    dtype = str(next(bundle.model.parameters()).dtype).replace("torch.", "")
    units = gen.sentences(args.n, bundle.model.config.vocab_size, args.seed)
    warmup = units[:max(4, args.warmup)]
    report.put(section, "setup", {"model": "tiny" if args.dry_run else "bart-base shape, random weights",
                                  "n": args.n, "k": args.k, "max_new_tokens": args.max_new_tokens, "hf_dtype": dtype,
                                  "loop_batch": args.loop_batch, "handler_batch": args.handler_batch,
                                  "warmup": len(warmup)})

    def timed_run(search, name: str):
        """Warm up, time, count: (beams, seconds)."""
        search(warmup)
        beams, seconds = gen.timed(lambda: search(units), device)
        if gen.produced(beams) > args.n * args.k:
            raise AssertionError(f"{name}: {gen.produced(beams)} beams for {args.n} inputs x {args.k}")
        return beams, seconds

    loop = lambda scores: (lambda us: gen.plain_loop(bundle, us, args.k, args.max_new_tokens,  # noqa: E731
                                                     args.loop_batch, scores=scores))
    reference, loop_s = timed_run(loop(True), "loop")
    loop_rate = args.n / loop_s
    report.put(section, "loop", {"sentences_per_s": round(loop_rate, 2), "seconds": round(loop_s, 2),
                                 "what": "plain model.generate loop with beam scores (output_scores), batches of "
                                         f"{args.loop_batch} in input order"})

    def row(beams, seconds: float, tolerance: float, **extra) -> dict:
        rate = args.n / seconds
        return {**extra, "sentences_per_s": round(rate, 2), "seconds": round(seconds, 2),
                "ratio_to_loop": round(rate / loop_rate, 3), "beams": gen.same_beams(reference, beams, tolerance)}

    hf_tolerance = TOLERANCE["float32" if dtype == "float32" else dtype]
    def hf_run(name: str, fields: dict):
        """One hf variant: its own bundle when it compiles (the shared one stays plain)."""
        variant = HfGenerateOptions(**{**options.__dict__, **fields})
        model = load_seq2seq(variant) if variant.compile else bundle
        search = lambda us: gen.in_batches(lambda b: generate_beams(model, b, variant), us,  # noqa: E731
                                           args.handler_batch)
        started = time.perf_counter()
        search(warmup)
        warmup_s = time.perf_counter() - started
        beams, seconds = gen.timed(lambda: search(units), device)
        return row(beams, seconds, hf_tolerance, options=fields, warmup_s=round(warmup_s, 2))

    for name, fields in HF_VARIANTS.items():
        guarded(report, section, f"hf:{name}", lambda: hf_run(name, fields), need_s=1.5 * loop_s)

    if (why := missing("ctranslate2")) is not None:
        report.put(section, "ct2", {"skipped": f"ctranslate2 missing ({why})"})
    else:
        from entailgen.transforms.generate.ct2_core import Ct2GenerateOptions, load_ct2, translate_beams

        for compute_type in args.ct2_compute_type:
            def ct2_run(compute_type=compute_type):
                ct2_options = Ct2GenerateOptions(model=path, k=args.k, max_new_tokens=args.max_new_tokens,
                                                 compute_type=compute_type, device=device.type,
                                                 cache_dir=os.path.join(work, "ct2"))
                started = time.perf_counter()
                model = load_ct2(ct2_options)  # converts once (cached), as a worker's setup does
                load_s = time.perf_counter() - started
                search = lambda us: gen.in_batches(lambda b: translate_beams(model, b, ct2_options), us,  # noqa
                                                   args.handler_batch)
                beams, seconds = timed_run(search, f"ct2:{compute_type}")
                tolerance = TOLERANCE["int8" if compute_type.startswith("int8") else compute_type]
                return row(beams, seconds, tolerance, device=model.translator.device,
                           compute_type=model.translator.compute_type, load_s=round(load_s, 2))
            guarded(report, section, f"ct2:{compute_type}", ct2_run, need_s=loop_s)

    def peaked():
        """The beams again on a model whose next-token distributions are peaked, as a trained model's are (init_std
        PEAKED_STD: the top token takes about 60 % at BART-base's shape, against 1 % at BART's own 0.02, where near
        ties let any rounding pick another beam): the first --check-n inputs, each method against the loop."""
        path_ = os.path.join(work, "bart-peaked")
        gen.save_random_model(path_, args.dry_run, args.seed, init_std=PEAKED_STD)
        options_ = HfGenerateOptions(**{**options.__dict__, "model": path_})
        bundle_ = load_seq2seq(options_)
        if args.hf_float32:
            bundle_.model.float()
        check = units[:args.check_n]
        reference_ = gen.plain_loop(bundle_, check, args.k, args.max_new_tokens, args.loop_batch)
        out: dict = {"n": len(check), "init_std": PEAKED_STD}
        for name, fields in {**HF_VARIANTS, "static-cache": HF_EXTRAS["static-cache"]}.items():
            variant = HfGenerateOptions(**{**options_.__dict__, **fields})
            try:
                out[f"hf:{name}"] = gen.same_beams(reference_, gen.in_batches(
                    lambda b: generate_beams(bundle_, b, variant), check, args.handler_batch), hf_tolerance)
            except Exception as exc:  # noqa: BLE001 (recorded; the other methods go on)
                out[f"hf:{name}"] = {"error": error_of(exc)}
        for compute_type in ([] if missing("ctranslate2") else args.ct2_compute_type):
            from entailgen.transforms.generate.ct2_core import Ct2GenerateOptions, load_ct2, translate_beams

            try:
                ct2_options = Ct2GenerateOptions(model=path_, k=args.k, max_new_tokens=args.max_new_tokens,
                                                 compute_type=compute_type, device=device.type,
                                                 cache_dir=os.path.join(work, "ct2"))
                model = load_ct2(ct2_options)
                tolerance = TOLERANCE["int8" if compute_type.startswith("int8") else compute_type]
                out[f"ct2:{compute_type}"] = gen.same_beams(reference_, gen.in_batches(
                    lambda b: translate_beams(model, b, ct2_options), check, args.handler_batch), tolerance)
            except Exception as exc:  # noqa: BLE001
                out[f"ct2:{compute_type}"] = {"error": error_of(exc)}
        return out
    guarded(report, section, "beams_peaked", peaked, need_s=5 if args.dry_run else 60)

    def bare():
        beams, seconds = timed_run(loop(False), "loop without scores")
        rate = args.n / seconds
        return {"sentences_per_s": round(rate, 2), "seconds": round(seconds, 2),
                "ratio_to_loop": round(rate / loop_rate, 3), "what": "the same loop without output_scores"}
    guarded(report, section, "loop_without_scores", bare, need_s=1.2 * loop_s)
    reserve = RESERVE_S if "training" in args.sections or "scoring" in args.sections else 0
    for i, (name, fields) in enumerate(HF_EXTRAS.items()):
        if args.dry_run and fields.get("compile"):
            report.put(section, f"hf:{name}", {"skipped": "dry run: compiling takes minutes on a CPU"})
            continue
        share = (report.left() - reserve) / (len(HF_EXTRAS) - i)
        guarded(report, section, f"hf:{name}", lambda: hf_run(name, fields), need_s=1.2 * loop_s + reserve,
                cap_s=share)
    del bundle
    torch.cuda.empty_cache() if device.type == "cuda" else None


# ---- training and scoring -------------------------------------------------------------------------------------------

ENCODERS = {  # the real encoders' shapes (random weights): sentence-transformers' all-MiniLM-L6-v2 and mpnet-base
    "minilm-l6": ("bert", dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                               intermediate_size=1536, max_position_embeddings=512)),
    "mpnet-base": ("mpnet", dict(vocab_size=30527, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                 intermediate_size=3072, max_position_embeddings=514)),
}
TINY = dict(vocab_size=600, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=160)
WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ro", "su", "ti", "ve", "zo")
         for b in ("ban", "dor", "fel", "gim", "hap", "jur", "kes", "lin", "mop", "nax", "pim", "qua", "rit", "sol",
                   "tuv", "wex", "yar", "zen", "bol", "cad")]  # 200 words, each one WordPiece token
RELATIONS = ("nsubj", "dobj", "amod", "nmod", "advmod", "compound", "conj", "xcomp")


def save_encoder(path: str, shape: str, dry_run: bool, seed: int) -> str:
    """A random-weight encoder of the shape and a WordPiece tokenizer whose vocabulary holds WORDS, saved as
    safetensors (what load_encoder reads; no hub)."""
    import torch
    from transformers import AutoConfig, AutoModel, BertTokenizerFast

    model_type, config = ENCODERS[shape]
    config = {**config, **(TINY if dry_run else {})}
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    filler = [f"[unused{i}]" for i in range(config["vocab_size"] - len(specials) - len(WORDS))]
    vocab = {w: i for i, w in enumerate(specials + WORDS + filler)}
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=True, model_max_length=config["max_position_embeddings"])
    torch.manual_seed(seed)
    model = AutoModel.from_config(AutoConfig.for_model(model_type, **config))
    model.save_pretrained(path, safe_serialization=True)
    tokenizer.save_pretrained(path)
    return path


def words(rng: random.Random, lo: int, hi: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]


def datasets(root: str, rows: int, seed: int) -> dict:
    """A dae dataset (ArcExample: premise, hypothesis and its arcs) and a recast one (RtePair), train and dev splits,
    as the reader reads them (JSON Lines shards and a manifest)."""
    import hashlib

    from entailgen.schemas.arrow import json_line
    from entailgen.schemas.records import ArcExample, LabelledArc, RtePair

    rng = random.Random(seed)

    def arc_example(i: int) -> ArcExample:
        hyp = words(rng, 8, 20)
        arcs = [LabelledArc(h, c, rng.choice(RELATIONS), hyp[h], hyp[c], rng.randint(0, 1))
                for c in range(len(hyp)) if (h := rng.randrange(len(hyp))) != c][:20]
        return ArcExample(f"a{i}", " ".join(words(rng, 15, 40)), " ".join(hyp), hyp, arcs, "bottom", "bench",
                          "bench", f"bench:{i}")

    def pair(i: int) -> RtePair:
        return RtePair(f"p{i}", " ".join(words(rng, 15, 40)), " ".join(words(rng, 5, 15)),
                       rng.choice(["entailed", "not-entailed"]), "bench", "t", "bench", f"bench:{i}")

    out = {}
    for name, make, record_type, pipeline in (("dae", arc_example, "ArcExample", "dae"),
                                              ("pair", pair, "RtePair", "recast")):
        directory = os.path.join(root, name)
        os.makedirs(directory)
        shards, splits = [], {"train": rows, "dev": max(8, rows // 32)}
        for split, n in splits.items():
            data = "".join(json_line(make(i)) + "\n" for i in range(n)).encode()
            shard = f"{split}-00000-of-00001.jsonl"
            with open(os.path.join(directory, shard), "wb") as f:
                f.write(data)
            shards.append({"path": shard, "split": split, "rows": n, "sha256": hashlib.sha256(data).hexdigest()})
        with open(os.path.join(directory, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump({"pipeline": pipeline, "record_type": record_type, "splits": splits, "shards": shards,
                       "stats": {}}, f)
        out[name] = directory
    return out


def training(report: Report, args, device, work: str) -> dict:
    """fit() for one epoch per (encoder shape, task), one process, Accelerate's bf16 on cuda (--mixed-precision auto):
    examples/s as train.json counts them (reading, featurising and steps; not loading, not the dev pass, not
    checkpoints), each shape and task after an untimed 512-row fit; then the dae task again as 4 batches of 8
    accumulated into each step (--grad-accum 4: the same effective batch of 32). Returns the pair model dirs, which
    the scoring section scores with."""
    from entailgen.training.fitting.trainer import TrainOptions, fit

    data = datasets(os.path.join(work, "data"), args.train_rows, args.seed)
    report.put("training", "setup", {"rows": args.train_rows, "epochs": 1, "batch_size": 32, "processes": 1,
                                     "autocast": "bf16 (Accelerate)" if device.type == "cuda" else "none (fp32 on cpu)",
                                     "grad_accum_rows": "batch 8 x --grad-accum 4",
                                     "shapes": {s: ENCODERS[s][1] for s in ENCODERS} if not args.dry_run else TINY})
    warm = datasets(os.path.join(work, "warm"), 64 if args.dry_run else 512, args.seed)
    models = {}
    for shape in ENCODERS:
        encoder = save_encoder(os.path.join(work, f"enc-{shape}"), shape, args.dry_run, args.seed)
        for task in ("dae", "pair"):  # untimed: the first fit of a shape pays CUDA's start, cuBLAS and kernel choice
            fit(warm[task], os.path.join(work, f"warm-{shape}-{task}"), TrainOptions(
                encoder=encoder, epochs=1, progress=False, device=device.type, seed=args.seed))
        for task, name, batch, accum in (("dae", "dae", 32, 1), ("pair", "pair", 32, 1), ("dae", "dae-accum4", 8, 4)):
            def run(task=task, name=name, shape=shape, encoder=encoder, batch=batch, accum=accum):
                out = os.path.join(work, f"model-{shape}-{name}")
                summary = fit(data[task], out, TrainOptions(encoder=encoder, epochs=1, progress=False, batch_size=batch,
                                                            grad_accum=accum, device=device.type, seed=args.seed))
                if name == "pair":
                    models[shape] = out
                return {"examples_per_s": summary["examples_per_s"], "train_s": summary["train_s"],
                        "examples": summary["counts"]["train"]["used"], "steps": summary["steps"],
                        "elapsed_s": summary["elapsed_s"], "batch_size": batch, "grad_accum": accum}
            guarded(report, "training", f"{name}:{shape}", run, need_s=10 if args.dry_run else 30)
    return models


SENTENCE = re.compile(r"(?<=[.!?])\s+")


def documents(n: int, seed: int) -> list[tuple[str, str]]:
    """n (document, summary) rows: documents of 6-12 sentences in two paragraphs, summaries of 1-3 sentences."""
    rng = random.Random(seed)
    sentence = lambda: " ".join(words(rng, 6, 18)).capitalize() + "."  # noqa: E731
    rows = []
    for _ in range(n):
        doc = [sentence() for _ in range(rng.randint(6, 12))]
        half = len(doc) // 2
        rows.append((" ".join(doc[:half]) + "\n\n" + " ".join(doc[half:]),
                     " ".join(sentence() for _ in range(rng.randint(1, 3)))))
    return rows


def regex_split(rows) -> list[tuple[list[str], list[str]]]:
    """(sentence blocks, summary sentences) per row by punctuation: the split where spaCy is absent."""
    split = lambda text: [s for p in text.split("\n\n") for s in SENTENCE.split(p.strip()) if s]  # noqa: E731
    return [(split(d), split(s)) for d, s in rows]


@contextlib.contextmanager
def pure_fp32():
    """The models' forward without its bf16 autocast on cuda (fitting.models.autocast), to time what bf16 buys."""
    import torch

    from entailgen.training import models

    original = models.autocast
    models.autocast = lambda device: torch.autocast(device.type, enabled=False)
    try:
        yield
    finally:
        models.autocast = original


def scoring(report: Report, args, device, models: dict) -> None:
    """DocumentScorer rows/s per pair model, fp32 and bf16 (cuda; on cpu fp32 only), 32 rows a call as `evaluate
    --benchmark` scores; the split (spaCy's where installed, else regex_split) made before the clock starts."""
    from entailgen.training.scoring.document_scorer import DocumentScorer

    rows = documents(args.score_rows, args.seed)
    spacy_why = missing("spacy")
    report.put("scoring", "setup", {"rows": len(rows), "rows_per_call": 32, "aggregation": "zs",
                                    "granularity": "sentence",
                                    "split": "regex (spaCy missing), not timed" if spacy_why else "spaCy, not timed"})
    for shape, model_dir in models.items():
        scorer = DocumentScorer(model_dir, "sentence", device=device.type, precision="fp32")
        split = (regex_split(rows) if spacy_why else
                 scorer.split([d for d, _ in rows], [s for _, s in rows]))
        for precision in (("fp32", "bf16") if device.type == "cuda" else ("fp32",)):
            def run(precision=precision):
                with pure_fp32() if precision == "fp32" else contextlib.nullcontext():
                    scorer.scored(rows[:32], split[:32])  # warm-up: allocator, kernels' first shapes
                    sync(device)
                    started = time.perf_counter()
                    scores = [r for i in range(0, len(rows), 32) for r in scorer.scored(rows[i:i + 32],
                                                                                         split[i:i + 32])]
                    sync(device)
                    seconds = time.perf_counter() - started
                scored = sum(isinstance(r, dict) for r in scores)
                return {"rows_per_s": round(len(rows) / seconds, 2), "seconds": round(seconds, 2), "scored": scored,
                        "cells": sum(len(b) * len(s) for b, s in split)}
            guarded(report, "scoring", f"{shape}:{precision}", run, need_s=5)


def sync(device) -> None:
    if device.type == "cuda":
        import torch

        torch.cuda.synchronize()


# ---- main -----------------------------------------------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None, help="the JSON file (default $OUT/bench-gpu.json, else out/)")
    parser.add_argument("--dry-run", action="store_true", help="tiny shapes on CPU, seconds: checks the script")
    parser.add_argument("--budget-s", type=float, default=None,
                        help="stop starting figures past this (default 420; dry run 900: a loaded CI machine)")
    parser.add_argument("--device", default="auto", help="auto (cuda when present), cuda, cpu")
    parser.add_argument("--sections", nargs="+", default=list(SECTIONS[1:]), choices=SECTIONS[1:])
    parser.add_argument("--n", type=int, default=None, help="source sentences (default 20000; dry run 8)")
    parser.add_argument("--k", type=int, default=None, help="beams (default 10; dry run 3)")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="(default 24; dry run 6)")
    parser.add_argument("--loop-batch", type=int, default=None, help="sentences per generate call in the loop (512)")
    parser.add_argument("--handler-batch", type=int, default=None, help="sentences per handler call (4096)")
    parser.add_argument("--warmup", type=int, default=None, help="inputs each method generates untimed first (2048)")
    parser.add_argument("--ct2-compute-type", nargs="*", default=None,
                        help="(default float16 bfloat16 int8_float16 on cuda; int8 float32 on cpu)")
    parser.add_argument("--hf-float32", action="store_true",
                        help="the loop and the hf handler in float32 on cuda too (default bf16 there), to check ct2 "
                             "float32's beams against them")
    parser.add_argument("--check-n", type=int, default=None,
                        help="inputs whose beams are checked again on a peaked model (default 1024; dry run 8)")
    parser.add_argument("--train-rows", type=int, default=None, help="training rows per task (default 8192)")
    parser.add_argument("--score-rows", type=int, default=None, help="scored documents (default 1024)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    full = dict(budget_s=420, n=20000, k=10, max_new_tokens=24, loop_batch=512, handler_batch=4096, warmup=2048,
                check_n=1024, train_rows=8192, score_rows=1024)
    dry = dict(budget_s=900, n=8, k=3, max_new_tokens=6, loop_batch=4, handler_batch=8, warmup=4, check_n=8,
               train_rows=48, score_rows=16)
    for key, value in (dry if args.dry_run else full).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.dry_run and args.device == "auto":
        args.device = "cpu"
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          "cpu" if args.device == "auto" else args.device)
    if args.ct2_compute_type is None:
        args.ct2_compute_type = (["float16", "bfloat16", "int8_float16"] if device.type == "cuda" else
                                 ["int8", "float32"])
    report = Report(args.out or default_out(), args.budget_s)
    report.data["command"] = sys.argv
    report.data["dry_run"] = args.dry_run
    report.put("machine", "info", machine(device))
    report.put("machine", "on_cpu", [
        "tokenising and decoding (every generation row)", "ct2's one-off conversion (its load_s, not timed)",
        "training: reading, featurising and collating rows (inside examples/s)",
        "scoring: splitting documents into sentences (not timed)"] + ([] if device.type == "cuda" else ["everything"]))
    work = tempfile.mkdtemp(prefix="entailgen-bench-gpu-")
    models: dict = {}  # shape -> the pair model dir training wrote, which scoring scores with
    try:
        for section in args.sections:
            if section == "generation":
                guarded(report, section, "run", lambda: generation(report, args, device, work) or "done")
            elif section == "training":
                guarded(report, section, "run", lambda: models.update(training(report, args, device, work)) or "done")
            elif section == "scoring":
                def score():
                    if not models:  # scoring alone: train the pair models it scores with, untimed
                        models.update(training(Report(os.path.join(work, "untimed.json"), 1e9), args, device, work))
                    return scoring(report, args, device, models) or "done"
                guarded(report, section, "run", score)
    finally:
        report.data["complete"] = True
        report.save()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
