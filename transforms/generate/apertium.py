"""Offline candidate generation by round-trip translation through Debian's Apertium (the embedded default generator).

No seq2seq weights are reachable here, but Apertium's rule-based pairs (eng-spa, eng-cat, en-gl) run offline; each
route English -> pivot(s) -> English rewrites x a little differently, giving up to k distinct paraphrase-like
hypotheses, ranked by similarity to x (rank.py). Install: apt-get install apertium apertium-eng-spa apertium-eng-cat
apertium-en-gl (optional extra routes: apertium-spa-cat, apertium-es-gl).
"""
from __future__ import annotations

import re
import subprocess
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.records import DeadLetter, dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate, batching
from entailgen.transforms.generate.rank import load_similarity, normalise, rank_candidates
from entailgen.transforms.retry import isolate_failures

DEAD = "dead"
INSTALL_HINT = "apt-get install -y apertium apertium-eng-spa apertium-eng-cat apertium-en-gl"

# English -> ... -> English chains of Apertium modes; routes whose modes are not installed are skipped.
DEFAULT_ROUTES: tuple[tuple[str, ...], ...] = (
    ("eng-spa", "spa-eng"),
    ("eng-cat", "cat-eng"),
    ("en-gl", "gl-en"),
    ("eng-spa", "spa-eng_US"),
    ("eng-cat_valencia", "cat-eng"),
    ("eng-cat", "cat-eng_US"),
    ("eng-spa", "spa-cat", "cat-eng"),
    ("eng-cat", "cat-spa", "spa-eng"),
    ("eng-spa", "es-gl", "gl-en"),
    ("en-gl", "gl-es", "spa-eng"),
    ("eng-spa", "spa-eng", "eng-cat", "cat-eng"),
    ("eng-spa", "spa-eng", "en-gl", "gl-en"),
    ("eng-cat", "cat-eng", "eng-spa", "spa-eng"),
    ("eng-cat", "cat-eng", "en-gl", "gl-en"),
    ("en-gl", "gl-en", "eng-spa", "spa-eng"),
    ("en-gl", "gl-en", "eng-cat", "cat-eng"),
    ("eng-spa", "spa-eng", "eng-cat", "cat-eng", "en-gl", "gl-en"),
)

# Apertium's marks: *unknown word, #lemma it could not generate, @lemma it could not translate.
MARKS = re.compile(r"(?<![\w*#@])[*#@]+(?=\w)")


class ApertiumUnavailable(RuntimeError):
    """Apertium or the language pairs a route needs are not installed."""


class ApertiumFailed(RuntimeError):
    """An Apertium run exited with an error or did not give one output line per input line."""


@dataclass(frozen=True)
class ApertiumOptions:
    """Round-trip generation: k hypotheses per x from these routes, ranked by `encoder` ('default' MiniLM, a path, or
    None for unigram overlap)."""

    k: int = 10
    routes: tuple[tuple[str, ...], ...] = DEFAULT_ROUTES
    encoder: Optional[str] = "default"
    batch_size: int = 512
    binary: str = "apertium"
    timeout_s: float = 600.0
    parallel: int = 4  # Apertium calls of a batch run at once (start-up is mostly waiting)


def strip_marks(text: str) -> str:
    """Translation text without Apertium's unknown/untranslated/ungenerated-word marks, whitespace collapsed."""
    return normalise(MARKS.sub("", text))


def installed_modes(binary: str = "apertium") -> frozenset[str]:
    """The translation directions Apertium lists; a clear error when Apertium itself is missing."""
    try:
        listing = subprocess.run([binary, "-l"], capture_output=True, text=True, timeout=60)
    except FileNotFoundError as exc:
        raise ApertiumUnavailable(f"{binary!r} not found; install it with: {INSTALL_HINT}") from exc
    return frozenset(listing.stdout.split())


def usable_routes(routes: Iterable[tuple[str, ...]], modes: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    """The routes all of whose modes are installed; an error naming the packages when none is."""
    usable = tuple(r for r in routes if all(m in modes for m in r))
    if not usable:
        raise ApertiumUnavailable(f"no round-trip route is installed (have {sorted(modes)}); {INSTALL_HINT}")
    return usable


def translate(lines: Sequence[str], mode: str, binary: str = "apertium", timeout_s: float = 600.0) -> list[str]:
    """Translate many one-line texts with one Apertium process (txt format keeps one output line per input line)."""
    text = "".join(normalise(line) + "\n" for line in lines)
    done = subprocess.run([binary, "-u", "-f", "txt", mode], input=text, capture_output=True, text=True,
                          timeout=timeout_s)
    if done.returncode != 0:
        raise ApertiumFailed(f"apertium {mode} exited {done.returncode}: {done.stderr.strip()[:300]}")
    out = done.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        raise ApertiumFailed(f"apertium {mode} gave {len(out)} lines for {len(lines)}")
    return [strip_marks(line) for line in out]


Translator = Callable[[Sequence[str], str], list[str]]


def round_trips(lines: Sequence[str], routes: Sequence[tuple[str, ...]], translator: Translator,
                parallel: int = 1) -> list[list[str]]:
    """For each line, its translation along every route (one translator call per distinct route prefix).

    With parallel > 1, up to that many calls run at once, each as soon as the prefix it extends is done: an Apertium
    call spends most of its wall time starting its pipeline of processes (about 0.7 s, a tenth of it CPU), and the
    calls are independent, so the results are the same."""
    prefixes = list(dict.fromkeys(route[:depth] for route in routes for depth in range(1, len(route) + 1)))
    done: dict[tuple[str, ...], list[str]] = {(): list(lines)}
    if parallel <= 1:
        for prefix in prefixes:
            done[prefix] = translator(done[prefix[:-1]], prefix[-1])
    else:
        with ThreadPoolExecutor(parallel, thread_name_prefix="apertium") as pool:
            running = {}
            try:
                while len(done) <= len(prefixes):
                    for prefix in prefixes:  # start what can start, in route order
                        if prefix not in done and prefix not in running and prefix[:-1] in done:
                            running[prefix] = pool.submit(translator, done[prefix[:-1]], prefix[-1])
                    finished, _ = wait(running.values(), return_when=FIRST_COMPLETED)
                    for prefix in [p for p, future in running.items() if future in finished]:
                        done[prefix] = running.pop(prefix).result()  # a failed call raises here
            finally:
                for future in running.values():
                    future.cancel()
    return [[done[route][i] for route in routes] for i in range(len(lines))]


def roundtrip_candidates(units: Sequence[SourceText], routes: Sequence[tuple[str, ...]], translator: Translator,
                         similarity, k: int, parallel: int = 1) -> list[list[Candidate]]:
    """Up to k distinct round trips per unit other than x itself, ranked by similarity to x (best first)."""
    texts = [normalise(u.text) for u in units]
    trips = round_trips(texts, routes, translator, parallel)
    hypotheses = [sorted({t for t in ts if t and t != x}) for x, ts in zip(texts, trips)]
    scores = similarity.score(list(zip(texts, hypotheses)))
    generator = f"apertium+{similarity.name}"
    return [rank_candidates(u.source_id, zip(hs, ss), generator, k) for u, hs, ss in zip(units, hypotheses, scores)]


def content_bucket(text: str, buckets: int) -> int:
    """The batch bucket of a sentence, from its text alone."""
    return batching.content_bucket(text, buckets, salt="apertium")


def content_batches(units: Iterable[SourceText], size: int) -> list[list[SourceText]]:
    """A bucket's units sorted by text then id, cut into batches of at most size.

    Apertium's output for a line depends on what else is in its stream (about 1 line in 40 changes), so batches
    must not depend on how a runner bundles elements: they are made from the content alone, and the same inputs
    give the same batches, translations and shards in any runner mode.
    """
    return batching.content_batches(units, size, key=batching.by_text)


class _RoundTripBatches(beam.DoFn):
    """Round-trip batches of source sentences; Apertium is checked and the encoder loaded once per worker."""

    def __init__(self, options: ApertiumOptions):
        self.options = options
        self.generated = beam.metrics.Metrics.counter("entailgen", "generated")
        self.no_candidates = beam.metrics.Metrics.counter("entailgen", "generate_no_candidates")
        self.dead = beam.metrics.Metrics.counter("entailgen", "generate_dead")

    def setup(self):
        self.routes = usable_routes(self.options.routes, installed_modes(self.options.binary))
        self.similarity = load_similarity(self.options.encoder)

    def translate(self, lines: Sequence[str], mode: str) -> list[str]:
        return translate(lines, mode, self.options.binary, self.options.timeout_s)

    def process(self, batch: list[SourceText]) -> Iterable:
        beams = isolate_failures(  # isolate the sentence Apertium chokes on
            batch, lambda units: roundtrip_candidates(units, self.routes, self.translate, self.similarity,
                                                      self.options.k, self.options.parallel),
            lambda unit, exc: dead_letter(unit.source, unit.source_id, "generate", type(exc).__name__, str(exc),
                                          unit.text),
            errors=(ApertiumFailed, subprocess.TimeoutExpired, UnicodeError), what="apertium batch")
        for candidates in beams:
            if isinstance(candidates, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, candidates)
                continue
            self.generated.inc(len(candidates))
            if not candidates:
                self.no_candidates.inc()
            yield from candidates


class RoundTripCandidates(beam.PTransform):
    """SourceText x -> Candidate h1..hk by Apertium round trips (main output) and DeadLetter (output 'dead')."""

    def __init__(self, options: ApertiumOptions = ApertiumOptions()):
        super().__init__()
        self.options = options

    def expand(self, units):
        return (units
                | "Batches" >> batching.ContentBatches(self.options.batch_size, salt="apertium", key=batching.by_text)
                | "RoundTrip" >> beam.ParDo(_RoundTripBatches(self.options)).with_outputs(DEAD, main="candidates"))
