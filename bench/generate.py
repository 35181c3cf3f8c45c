"""Beam-search throughput of the hf and ct2 handlers against a plain loop of model.generate, side by side in one run.

Same model (BART-base shape, random weights, bf16 on GPU), same N inputs of 5-40 words, k = 10 beams, 24 new tokens.
The handler sorts each batch by length and cuts it into buckets of repeating shapes under a token budget, and
recomputes beam scores in one pass; the baseline generates batches of --baseline-batch sentences in input order and
asks generate for the scores. Both first generate the same --warmup inputs, so each runs shapes it has seen, as a
long-running worker does. The ct2 handler (CTranslate2) runs the same saved model after its one-off conversion, once
per --ct2-compute-type. Prints every rate and its ratio to the loop (targets on an H100: best >= 2.0, hf >= 1.2).

    python bench/generate.py --ct2-compute-type auto float32       # GPU run, N = 20000 (auto: bfloat16)
    python bench/generate.py --n 256 --small --baseline-batch 64 --handler-batch 256 --warmup 64 \
        --ct2-compute-type int8 float32 --device cpu                # CPU figure with a tiny model

--batch-tokens and --bucket-size take several values (each pair is timed). --check-batching M generates the first M
inputs twice, in input-order batches and shuffled into other batches, and prints how many beams came out identical:
in bf16 a sentence's beam can depend on what it was batched with.
"""
from __future__ import annotations

import argparse
import platform
import random
import shutil
import tempfile
import time

import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate.hf_core import HfGenerateOptions, generate_beams, load_seq2seq
from entailgen.transforms.generate.rank import normalise

try:
    import ctranslate2
    from entailgen.transforms.generate.ct2_core import Ct2GenerateOptions, load_ct2, translate_beams
except ImportError:  # the ct2 rows are skipped
    ctranslate2 = None

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]


def bart_config(small: bool) -> BartConfig:
    """facebook/bart-base's shape (or a tiny one for a CPU smoke run), untied from any checkpoint."""
    shape = (dict(vocab_size=1000, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                  decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128) if small else
             dict(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
                  decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072))
    return BartConfig(**shape, max_position_embeddings=1024, bos_token_id=0, pad_token_id=1, eos_token_id=2,
                      decoder_start_token_id=2, forced_bos_token_id=None, forced_eos_token_id=None)


def word_tokenizer(vocab_size: int) -> PreTrainedTokenizerFast:
    """A word-level tokenizer whose words w0, w1, ... are one token each (no downloads)."""
    vocab = {w: i for i, w in enumerate(SPECIALS + [f"w{i}" for i in range(vocab_size - len(SPECIALS))])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A </s>",
                                                             special_tokens=[("<s>", 0), ("</s>", 2)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")


def save_random_model(path: str, small: bool, seed: int, init_std: float | None = None) -> None:
    """A randomly initialised BART and its tokenizer, saved as safetensors for the handler's real load path;
    init_std (BART's 0.02 unless given) sets how peaked its next-token distributions are."""
    torch.manual_seed(seed)
    config = bart_config(small)
    if init_std is not None:
        config.init_std = init_std
    BartForConditionalGeneration(config).save_pretrained(path)
    word_tokenizer(config.vocab_size).save_pretrained(path)


def sentences(n: int, vocab_size: int, seed: int) -> list[SourceText]:
    """n inputs of 5-40 random words, the same for both methods."""
    rng = random.Random(seed)
    words = vocab_size - len(SPECIALS)
    return [SourceText(" ".join(f"w{rng.randrange(words)}" for _ in range(rng.randint(5, 40))), "bench", str(i))
            for i in range(n)]


def sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def plain_loop(bundle, units, k: int, max_new_tokens: int, batch_size: int, scores: bool = True) -> list[list]:
    """The baseline: fixed-size batches in input order, padded to their longest, generated and decoded, with the
    beam scores the pipeline keeps (generate's output_scores) unless scores=False; each unit's k (text, score)
    beams, best first (score None without scores)."""
    beams = []
    for start in range(0, len(units), batch_size):
        texts = [u.text for u in units[start:start + batch_size]]
        features = bundle.tokenizer(texts, padding=True, return_tensors="pt").to(bundle.device)
        with torch.inference_mode():
            out = bundle.model.generate(**features, num_beams=k, num_return_sequences=k, do_sample=False,
                                        max_new_tokens=max_new_tokens, output_scores=scores,
                                        return_dict_in_generate=True)
        decoded = bundle.tokenizer.batch_decode(out.sequences, skip_special_tokens=True)
        values = out.sequences_scores.float().tolist() if scores else [None] * len(decoded)
        beams.extend(list(zip(decoded[i:i + k], values[i:i + k])) for i in range(0, len(decoded), k))
    return beams


def in_batches(search, units, batch_size: int) -> list[list]:
    """A handler's search (units -> their beams of Candidate) fed RunInference-sized batches in input order (it sorts
    and buckets inside); each unit's beams as (text, score), best first."""
    return [[(c.text, c.score) for c in beam] for start in range(0, len(units), batch_size)
            for beam in search(units[start:start + batch_size])]


def produced(beams: list[list]) -> int:
    return sum(len(beam) for beam in beams)


def same_beams(reference: list[list], other: list[list], tolerance: float) -> dict:
    """How far a handler's beams are from the loop's, unit by unit: the share with the same top beam, the same beams
    in the same order, the same set of beams; over beams of the same text, the largest score difference and the
    share within tolerance."""
    n = len(reference)
    texts = lambda beam: [normalise(t) for t, _ in beam]  # noqa: E731 (the handler normalises its outputs)
    top = sum(texts(a)[:1] == texts(b)[:1] for a, b in zip(reference, other))
    ordered = sum(texts(a) == texts(b) for a, b in zip(reference, other))
    sets = sum(set(texts(a)) == set(texts(b)) for a, b in zip(reference, other))
    diffs = []
    for a, b in zip(reference, other):
        scores = {normalise(t): s for t, s in b}
        diffs.extend(abs(s - scores[normalise(t)]) for t, s in a
                     if s is not None and scores.get(normalise(t)) is not None)
    return {"units": n, "top_beam_identical": round(top / n, 4), "beams_identical": round(ordered / n, 4),
            "beam_sets_identical": round(sets / n, 4), "scores_compared": len(diffs),
            "max_score_difference": round(max(diffs), 6) if diffs else None,
            "scores_within_tolerance": round(sum(d <= tolerance for d in diffs) / len(diffs), 4) if diffs else None,
            "tolerance": tolerance}


def timed(fn, device):
    sync(device)
    start = time.perf_counter()
    result = fn()
    sync(device)
    return result, time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20000, help="source sentences")
    parser.add_argument("--k", type=int, default=10, help="beams = hypotheses per sentence")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    parser.add_argument("--baseline-batch", type=int, default=512,
                        help="sentences per generate call, baseline (512: the brief's H100 reference, ~780 sentences/s)")
    parser.add_argument("--batch-tokens", type=int, nargs="+", default=[HfGenerateOptions.batch_tokens],
                        help="handler budgets to time")
    parser.add_argument("--bucket-size", type=int, nargs="+", default=[HfGenerateOptions.bucket_size],
                        help="handler bucket sizes to time (each with each budget)")
    parser.add_argument("--warmup", type=int, default=2048,
                        help="inputs each method generates before timing, so both run the shapes they have seen")
    parser.add_argument("--handler-batch", type=int, default=HfGenerateOptions.max_batch_size,
                        help="elements per RunInference batch")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--small", action="store_true", help="tiny model, for a CPU smoke run")
    parser.add_argument("--check-batching", type=int, default=0, metavar="M",
                        help="compare beams of the first M inputs across two batch compositions")
    parser.add_argument("--ct2-compute-type", nargs="*", default=["auto"],
                        help="CTranslate2 compute types to time (none: skip ct2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    path = tempfile.mkdtemp(prefix="entailgen-bench-")
    try:
        run(args, path)
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run(args, path: str) -> None:
    save_random_model(path, args.small, args.seed)
    hf_options = [HfGenerateOptions(model=path, k=args.k, max_new_tokens=args.max_new_tokens, batch_tokens=budget,
                                    bucket_size=size, device=args.device, max_batch_size=args.handler_batch)
                  for budget in args.batch_tokens for size in args.bucket_size]
    bundle = load_seq2seq(hf_options[0])
    units = sentences(args.n, bundle.model.config.vocab_size, args.seed)
    device = bundle.device

    warmup = units[:max(8, args.warmup)]
    plain_loop(bundle, warmup, args.k, args.max_new_tokens, args.baseline_batch)

    base_out, base_s = timed(lambda: plain_loop(bundle, units, args.k, args.max_new_tokens, args.baseline_batch),
                             device)
    assert produced(base_out) == args.n * args.k, produced(base_out)
    machine = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({platform.processor() or 'cpu'})"
    base_rate = args.n / base_s
    print(f"machine: {machine}; torch {torch.__version__}; transformers {transformers.__version__}; "
          f"ctranslate2 {getattr(ctranslate2, '__version__', 'not installed')}; "
          f"dtype {next(bundle.model.parameters()).dtype}; {torch.get_num_threads()} torch threads")
    print(f"model: {'tiny' if args.small else 'bart-base-shaped'} random weights; n={args.n} k={args.k} "
          f"max_new_tokens={args.max_new_tokens}")
    print(f"baseline, plain model.generate loop with beam scores (batch {args.baseline_batch}): {base_rate:.1f} "
          f"sentences/s ({base_s:.1f} s)", flush=True)
    bare_out, bare_s = timed(lambda: plain_loop(bundle, units, args.k, args.max_new_tokens, args.baseline_batch,
                                                scores=False), device)
    print(f"reference, the same loop without scores: {args.n / bare_s:.1f} sentences/s ({bare_s:.1f} s)", flush=True)
    for options in hf_options:
        search = lambda batch: generate_beams(bundle, batch, options)  # noqa: E731
        in_batches(search, warmup, args.handler_batch)
        try:
            ours_out, ours_s = timed(lambda: in_batches(search, units, args.handler_batch), device)
        except torch.OutOfMemoryError:
            print(f"Seq2SeqBeamHandler (budget {options.batch_tokens} tokens, buckets of "
                  f"{options.bucket_size}): out of GPU memory")
            torch.cuda.empty_cache()
            continue
        assert produced(ours_out) == args.n * args.k, produced(ours_out)
        ours_rate = args.n / ours_s
        print(f"Seq2SeqBeamHandler with beam scores (budget {options.batch_tokens} tokens, buckets of "
              f"{options.bucket_size}): {ours_rate:.1f} "
              f"sentences/s ({ours_s:.1f} s); ratio: {ours_rate / base_rate:.2f}x "
              f"(x{ours_rate * bare_s / args.n:.2f} against the loop without scores)", flush=True)
    ct2_runs = []
    for compute_type in (args.ct2_compute_type if ctranslate2 is not None else []):
        options = Ct2GenerateOptions(model=path, k=args.k, max_new_tokens=args.max_new_tokens,
                                     compute_type=compute_type, device=args.device, bucket_size=args.bucket_size[0],
                                     cache_dir=f"{path}-ct2")
        model = load_ct2(options)  # converts once (cached), as a worker's setup does
        search = lambda batch, model=model, options=options: translate_beams(model, batch, options)  # noqa: E731
        in_batches(search, warmup, args.handler_batch)
        out, seconds = timed(lambda: in_batches(search, units, args.handler_batch), device)
        assert produced(out) <= args.n * args.k, produced(out)
        rate = args.n / seconds
        print(f"Ct2BeamHandler ({model.translator.device}, {model.translator.compute_type}, buckets of "
              f"{options.bucket_size}): {rate:.1f} sentences/s ({seconds:.1f} s); ratio: "
              f"{rate / base_rate:.2f}x (x{rate * bare_s / args.n:.2f} against the loop without scores)", flush=True)
        ct2_runs.append(search)
    shutil.rmtree(f"{path}-ct2", ignore_errors=True)
    if args.check_batching:
        check_batching(lambda batch: generate_beams(bundle, batch, hf_options[0]), "Seq2SeqBeamHandler",
                       units[:args.check_batching], args.seed)
        for search in ct2_runs:
            check_batching(search, "Ct2BeamHandler", units[:args.check_batching], args.seed)


def check_batching(search, name: str, units, seed: int) -> None:
    """How many beams (texts and scores) stay identical when the same inputs are batched differently."""
    first = [b for start in range(0, len(units), 512) for b in search(units[start:start + 512])]
    order = list(range(len(units)))
    random.Random(seed + 1).shuffle(order)
    second: dict[int, list] = {}
    for start in range(0, len(order), 97):
        chunk = order[start:start + 97]
        second.update(zip(chunk, search([units[i] for i in chunk])))
    texts = sum([c.text for c in first[i]] == [c.text for c in second[i]] for i in order)
    exact = sum(first[i] == second[i] for i in order)
    drift = max(abs(a.score - b.score) for i in order for a, b in zip(first[i], second[i]))
    print(f"{name} batch composition check on {len(units)} inputs: identical beam texts {texts / len(units):.1%}, "
          f"identical texts and scores {exact / len(units):.1%}, largest score change {drift:.2e}")


if __name__ == "__main__":
    main()
