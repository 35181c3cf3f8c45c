"""Benchmark: a family's whole `entailgen run` against its raw stages alone, on the same input.

Raw stages, in this one process: spaCy `nlp.pipe` over every text the family parses, each Apertium route as one
long-lived process per mode over every text it translates, MiniLM over every text it embeds (length-sorted batches
of 256). The job is `entailgen run` in a child process, as a user runs it (DirectRunner defaults). Printed: wall time
and the CPU time of the process tree (own + reaped children) of both sides, the ratio raw-sum / entailgen, and with
--profile where entailgen's time goes (py-spy over the job's process tree, idle threads included, in a second run).

Inputs (the text the project already uses; see bench/quality.py): UD-EWT from the decomp==0.3.2 wheel.
  claims      N news-length documents: runs of consecutive EWT sentences (documents in order) of about 3,000
              characters, three sentences a paragraph. No news text ships, so this stands in for news.
  paraphrase  N distinct EWT sentences of 6..40 words (bench/quality.py's pick).
  dae         N (x, h*) pairs: those sentences with their eng-spa-eng Apertium round trip as h* (made once, cached).
  recast      N units resampled from the family's samples but relation.txt (bench/scale.py); by default it runs no
              model, so it has no raw stage.
Usage: python bench/pipeline.py FAMILY --n N [--work DIR] [--wheel DECOMP_WHEEL] [--profile] [-- RUN FLAGS...]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from host import describe  # bench/host.py, beside this script

FAMILIES = ("claims", "paraphrase", "dae", "recast")
DOCUMENT_CHARS = 3000
SENTENCES_PER_PARAGRAPH = 3
CLAIM_ROUTES = (("eng-spa", "spa-eng"), ("eng-cat", "cat-eng"), ("en-gl", "gl-en"))  # pipelines/claims.py
RAW_TORCH_THREADS = 1
MIN_CLAIM_TOKENS = 8  # transforms/claims/claims.py: what a sampled claim needs
PY_SPY = os.environ.get("PY_SPY", shutil.which("py-spy") or "py-spy")


def cpu_seconds() -> float:
    """CPU seconds of this process and every child it has reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Clock:
    """Wall and CPU seconds of named steps, in order."""

    def __init__(self):
        self.steps: dict[str, tuple[float, float]] = {}

    def time(self, name: str, fn, *args):
        wall, cpu = time.perf_counter(), cpu_seconds()
        out = fn(*args)
        self.steps[name] = (time.perf_counter() - wall, cpu_seconds() - cpu)
        return out

    def total(self) -> tuple[float, float]:
        return sum(w for w, _ in self.steps.values()), sum(c for _, c in self.steps.values())


# --- inputs -----------------------------------------------------------------------------------------------------

def uds_files(opts) -> list[str]:
    from uds import extract, fetch_wheel  # bench/uds.py, beside this script

    cache = opts.cache
    cache.mkdir(parents=True, exist_ok=True)
    return extract(opts.wheel or fetch_wheel(cache), cache)


def ewt_in_order(opts) -> list[str]:
    """Every EWT sentence with a document, documents by id and sentences in document order (detokenized)."""
    import zipfile

    from entailgen.transforms.io.ewt_documents import SENTENCES, UD_IDS, ewt_sentences

    from audit import fetch_wheel

    wheel = opts.wheel or fetch_wheel(opts.cache)
    placed = []
    with zipfile.ZipFile(wheel) as archive:
        ud_ids = json.loads(archive.read(UD_IDS))
        for split in ("train", "dev", "test"):
            with archive.open(SENTENCES.format(split=split)) as handle:
                placed += ewt_sentences(iter(lambda: handle.read(1 << 20), b""), ud_ids)
    return [text for _, _, text in sorted(placed)]


def news_documents(sentences: list[str], n: int, seed: int = 0) -> list[dict]:
    """n documents of about DOCUMENT_CHARS characters: runs of consecutive sentences from seeded distinct starts,
    SENTENCES_PER_PARAGRAPH sentences a paragraph (blank lines between, as FactCC's text)."""
    rng = random.Random(seed)
    starts = rng.sample(range(len(sentences)), n) if n <= len(sentences) else [rng.randrange(len(sentences))
                                                                                for _ in range(n)]
    documents = []
    for j, start in enumerate(starts):
        picked, chars, i = [], 0, start
        while chars < DOCUMENT_CHARS:
            picked.append(sentences[i % len(sentences)])
            chars += len(picked[-1]) + 1
            i += 1
        paragraphs = [" ".join(picked[k:k + SENTENCES_PER_PARAGRAPH])
                      for k in range(0, len(picked), SENTENCES_PER_PARAGRAPH)]
        documents.append({"id": f"ewt-news-{j}", "text": "\n\n".join(paragraphs)})
    return documents


def write_input(opts, work: Path) -> tuple[Path, list]:
    """The family's input file under work (made once per family and N) and what the raw side reads from it."""
    work.mkdir(parents=True, exist_ok=True)
    if opts.family == "claims":
        path = work / f"news-{opts.n}.jsonl"
        if not path.exists():
            documents = news_documents(ewt_in_order(opts), opts.n, opts.seed)
            path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in documents), encoding="utf-8")
        return path, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if opts.family in ("paraphrase", "dae"):
        from quality import ewt_sentences  # bench/quality.py, beside this script

        path = work / f"ewt-{opts.n}.txt"
        if not path.exists():
            path.write_text("".join(s + "\n" for s in ewt_sentences(uds_files(opts), opts.n)), encoding="utf-8")
        xs = path.read_text(encoding="utf-8").splitlines()
        if opts.family == "paraphrase":
            return path, xs
        pairs_path = work / f"pairs-{opts.n}.tsv"
        if not pairs_path.exists():
            golds = translate_route(xs, ("eng-spa", "spa-eng"))
            pairs_path.write_text("".join(f"{x}\t{h or x}\t1.0\n" for x, h in zip(xs, golds)), encoding="utf-8")
        return pairs_path, [tuple(line.split("\t")[:2]) for line in pairs_path.read_text().splitlines()]
    from scale import synthetic_inputs  # bench/scale.py, beside this script

    directory = work / f"recast-{opts.n}"
    if not directory.exists():
        directory.mkdir()
        synthetic_inputs("recast", opts.n, opts.seed, directory)
        (directory / "relation.txt").unlink(missing_ok=True)  # the relation recast needs a --kb: not by default
    return directory, sorted(str(p) for p in directory.iterdir())


# --- raw stages -------------------------------------------------------------------------------------------------

def spacy_pipe(texts: list[str]) -> int:
    """Load spaCy and parse every text with nlp.pipe (batch 256, the parser's default); returns tokens."""
    from entailgen.transforms.parser import load_spacy

    nlp = load_spacy()
    return sum(len(doc) for doc in nlp.pipe(texts, batch_size=256))


def apertium_mode(lines: list[str], mode: str) -> list[str]:
    """One Apertium process over every line (txt format: one output line per input line)."""
    text = "".join(" ".join(line.split()) + "\n" for line in lines)
    done = subprocess.run(["apertium", "-u", "-f", "txt", mode], input=text, capture_output=True, text=True,
                          check=True)
    return done.stdout.split("\n")[:len(lines)]


def translate_route(lines: list[str], route: tuple[str, ...]) -> list[str]:
    for mode in route:
        lines = apertium_mode(lines, mode)
    return lines


def apertium_routes(lines: list[str], routes) -> list[list[str]]:
    """Every route over every line, each distinct route prefix translated once (as the generator does)."""
    from entailgen.transforms.generate.apertium import installed_modes, round_trips, usable_routes, strip_marks

    usable = usable_routes(routes, installed_modes())
    return [[strip_marks(t) for t in trips] for trips in round_trips(lines, usable, apertium_mode)]


def minilm(texts: list[str]) -> int:
    """Load MiniLM and embed every distinct text once, length-sorted batches of 256, on one intra-op thread (on 2
    shared cores torch's default of 2 spinning threads ran this about 2x slower); returns texts embedded."""
    import torch

    from entailgen.transforms.generate.rank import EncoderSimilarity, default_encoder_path

    torch.set_num_threads(RAW_TORCH_THREADS)
    encoder = EncoderSimilarity(default_encoder_path())
    distinct = sorted(set(texts), key=lambda t: (len(t), t))
    encoder.embed(distinct)
    return len(distinct)


def first_claim_sentence(doc) -> str:
    """The raw side's stand-in for a sampled claim: the document's first sentence of MIN_CLAIM_TOKENS tokens."""
    return next((s.text for s in doc.sents if len(s) >= MIN_CLAIM_TOKENS), "")


def raw_stages(family: str, data: list, clock: Clock) -> None:
    """Time the family's raw stages on data, step by step, into clock."""
    if family == "claims":
        from entailgen.transforms.claims.blocks import paragraphs
        from entailgen.transforms.parser import load_spacy

        parts = [paragraphs(d["text"]) for d in data]
        texts = [p for ps in parts for p in ps]

        def parse():
            nlp = load_spacy()
            found = iter(first_claim_sentence(doc) for doc in nlp.pipe(texts, batch_size=256))
            firsts = [[next(found) for _ in ps] for ps in parts]
            return [next((t for t in fs if t), "") for fs in firsts]

        # one claim per document, as the job (claims_per_document 1); the stand-in is its first long sentence
        claims = [c for c in clock.time("spaCy (every paragraph)", parse) if c]
        clock.time(f"Apertium 3 routes ({len(claims)} claims)", apertium_routes, claims, CLAIM_ROUTES)
    elif family in ("paraphrase", "dae"):
        from entailgen.transforms.generate.apertium import DEFAULT_ROUTES

        xs = data if family == "paraphrase" else [x for x, _ in data]
        trips = clock.time(f"Apertium {len(DEFAULT_ROUTES)} routes", apertium_routes, xs, DEFAULT_ROUTES)
        candidates = [sorted({t for t in ts if t and t != x}) for x, ts in zip(xs, trips)]
        clock.time(f"MiniLM (x and candidates, {RAW_TORCH_THREADS} thread)", minilm,
                   xs + [c for cs in candidates for c in cs])
        if family == "dae":
            texts = xs + [h for _, h in data] + [c for cs in candidates for c in cs[:10]]
            clock.time(f"spaCy ({len(texts)} x, h*, candidates)", spacy_pipe, texts)


# --- the job ----------------------------------------------------------------------------------------------------

def job_command(opts, path: Path, output: Path, flags: list[str]) -> list[str]:
    inputs = [f"--input={p}" for p in sorted(path.iterdir())] if path.is_dir() else [f"--input={path}"]
    extra = ["--max-chars=100000"] if opts.family == "claims" else []
    return [sys.executable, "-m", "entailgen.runners.cli", "run", opts.family, *inputs, f"--output={output}",
            "--overwrite", "--quiet", *extra, *flags]


def run_job(cmd: list[str]) -> dict:
    """The job in a child process: wall seconds, CPU seconds of its whole (reaped) tree, and the manifest's totals."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"job failed: {' '.join(cmd)}\n{stderr[-3000:]}")
    output = next(a.split("=", 1)[1] for a in cmd if a.startswith("--output="))
    total = json.loads(Path(output, "manifest.json").read_text())["counts"]["total"]
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, **total}


def profile(cmd: list[str], out: Path) -> list[str]:
    """Where the job's time goes: py-spy over its process tree (idle threads too), top leaf and entailgen frames."""
    raw = out / "profile.txt"
    done = subprocess.run([PY_SPY, "record", "--subprocesses", "--idle", "--rate", "50", "--format", "raw",
                           "-o", str(raw), "--", *cmd], capture_output=True, text=True)
    if done.returncode or not raw.exists():
        return [f"py-spy failed ({done.returncode}): {done.stderr.strip()[-500:]}"]
    leaves, ours, threads, total = Counter(), Counter(), Counter(), 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames, n = stack.split(";"), int(count)
        total += n
        threads[frames[0].split(" ")[0] if frames else "?"] += n
        leaves[_frame(frames[-1])] += n
        for name in {_frame(f) for f in frames if "entailgen" in f}:
            ours[name] += n
    lines = [f"py-spy samples (all threads, idle included; 50/s): {total}",
             "top leaf frames (self time, incl. waiting):"]
    lines += [f"  {n / total:6.1%}  {name}" for name, n in leaves.most_common(15)]
    lines += ["top entailgen frames (inclusive):"]
    lines += [f"  {n / total:6.1%}  {name}" for name, n in ours.most_common(25)]
    return lines


def _frame(frame: str) -> str:
    """'process (entailgen/transforms/parser.py:170)' -> 'process parse.py:170'."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    return f"{name} {'/'.join(where.split('/')[-2:])}"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("family", choices=FAMILIES)
    args.add_argument("--n", type=int, default=200)
    args.add_argument("--seed", type=int, default=0)
    args.add_argument("--work", type=Path, default=Path.home() / ".cache" / "entailgen" / "pipeline-bench")
    args.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "entailgen")
    args.add_argument("--wheel", type=Path, help="the decomp==0.3.2 wheel (else downloaded into --cache)")
    args.add_argument("--no-raw", action="store_true", help="time the job only")
    args.add_argument("--no-job", action="store_true", help="no timed job (the raw stages only, or --profile only)")
    args.add_argument("--profile", action="store_true", help="then run the job again under py-spy")
    argv = sys.argv[1:]
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = args.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    work = opts.work / opts.family
    path, data = write_input(opts, work)
    print(describe(f"family {opts.family}, N {opts.n}{' flags ' + ' '.join(flags) if flags else ''}"), flush=True)
    clock = Clock()
    if not opts.no_raw:
        raw_stages(opts.family, data, clock)
    raw_wall, raw_cpu = clock.total()
    for name, (wall, cpu) in clock.steps.items():
        print(f"raw  {name:<44} wall {wall:8.1f} s  cpu {cpu:8.1f} s")
    print(f"raw  {'sum':<44} wall {raw_wall:8.1f} s  cpu {raw_cpu:8.1f} s  (load {os.getloadavg()[0]:.2f})")
    cmd = job_command(opts, path, work / "out", flags)
    if not opts.no_job:
        job = run_job(cmd)
        print(f"entailgen run {opts.family:<32} wall {job['wall']:8.1f} s  cpu {job['cpu']:8.1f} s  "
              f"(load {os.getloadavg()[0]:.2f})  read {job['read']} written {job['written']} "
              f"dead {job['dead_letters']}")
        print(f"units/s: {opts.n / job['wall']:.2f} (entailgen)  "
              f"{opts.n / raw_wall if raw_wall else float('nan'):.2f} (raw)")
        if raw_wall:
            print(f"ratio raw-sum / entailgen (wall): {raw_wall / job['wall']:.2f}   (cpu): {raw_cpu / job['cpu']:.2f}")
    if opts.profile:
        print("\n".join(profile(cmd, work)))


if __name__ == "__main__":
    sys.exit(main())
