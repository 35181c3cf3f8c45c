"""The score cache: a model's DocumentScorer.scored results, row by row, so a long evaluation survives an interruption
or a late error and a rerun scores only the rows not yet scored. `evaluate --benchmark` keeps it in score_cache_dir();
a caller that keeps its own work dir passes its paths to cached_results."""
from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from typing import Callable, Optional, Sequence

from entailgen.training.fitting.checkpoint import WEIGHTS
from entailgen.training.scoring.score_modes import ScoreMode
from entailgen.training.scoring.summac import CONV_CONFIG, CONV_WEIGHTS, model_checksums
from entailgen.training.scoring.unscorable import Unscorable
from entailgen.transforms.io.paths import user_cache
from entailgen.transforms.parser import spacy_model_id

Scorer = Callable[[list[tuple[str, str]]], list[float]]  # a scorer as a benchmark calls it: pairs in, scores out


def with_progress(scorer: Scorer, name: str = "", chunk: int = 32, every_s: float = 5.0, stream=None) -> Scorer:
    """The scorer run over chunks of rows, '[name: ]scored N / TOTAL rows' on stderr every every_s seconds once it
    takes that long (a document model on a benchmark takes minutes)."""
    def scored(pairs: list[tuple[str, str]]) -> list[float]:
        out: list[float] = []
        start = last = time.monotonic()
        for i in range(0, len(pairs), chunk):
            out += list(scorer(pairs[i:i + chunk]))
            if time.monotonic() - last >= every_s:
                last = time.monotonic()
                print(f"{name + ': ' if name else ''}scored {len(out)} / {len(pairs)} rows ({last - start:.0f} s)",
                      file=stream or sys.stderr, flush=True)
        return out

    return scored


SCORING_CODE = (*(f"training/scoring/{m}.py" for m in ("document_scorer", "scorers", "score_modes", "summac",
                                                    "evaluation", "precision", "passages")),
                *(f"training/fitting/{m}.py" for m in ("features", "checkpoint", "encoder", "models", "trainer")),
                "transforms/claims/blocks.py", "transforms/parser.py", "transforms/arcs.py", "transforms/passages.py")
# what turns a model and a row into its score: the split, the parse, the features, the loaded model and its forward
CACHE_FORMAT = b"score cache 2: lines of {row key: {score, matrix, blocks, summary_sentences, sentence_scores} or " \
               b"{unscorable, message}}"
CACHED = ("score", "matrix", "blocks", "summary_sentences", "sentence_scores")  # what ZS, Conv and an ensemble read
SCORE_CHUNK = 32  # rows per scoring call: the cache grows, and progress is told, a chunk at a time


def score_cache_dir() -> str:
    """Where `evaluate --benchmark` caches scores: ~/.cache/entailgen/scores ($XDG_CACHE_HOME/entailgen/scores), one
    place outside any model dir (a model dir may be read-only or shared), safe to delete; OSError where there is no
    home folder."""
    return user_cache("scores")


def warn(text: str, stream=None) -> None:
    """One warning line on stderr: the cache is an aid, never a reason to stop scoring."""
    print(f"warning: {text}", file=stream or sys.stderr, flush=True)


def score_cache_paths(names: Sequence[str], stream=None) -> list[Optional[str]]:
    """Each cache file's path in score_cache_dir(), or None for every one (one warning) where there is no home folder
    to keep them in: scored without a cache."""
    try:
        root = score_cache_dir()
    except OSError as e:
        warn(f"{e}; scoring without the score cache (a rerun scores every row again)", stream)
        return [None] * len(names)
    return [os.path.join(root, name) for name in names]


def _sha256_of(paths: Sequence[str]) -> str:
    """The sha256 of the files' contents, in order (a missing file adds nothing)."""
    digest = hashlib.sha256()
    for path in paths:
        if os.path.isfile(path):
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def scoring_code_sha256() -> str:
    """The sha256 of the code that scores a row (SCORING_CODE), of the spaCy pipeline it parses with (another one
    splits and parses rows otherwise) and of the cache's format."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the entailgen package
    code = _sha256_of([os.path.join(root, f) for f in SCORING_CODE])
    return hashlib.sha256(CACHE_FORMAT + f"{code} {spacy_model_id()}".encode()).hexdigest()


def cache_name(model_dir, granularity: str = "sentence", aggregation: str = "zs",
               conv_dir: Optional[str] = None, device: str = "cpu", mode: ScoreMode = ScoreMode(),
               precision: str = "fp32", evidence: str = "") -> str:
    """A model's score cache file (model_dir: a ModelDir, or a path): named by its checksums (its weights where it has
    none), the scoring code's sha256 and the options that change a score (blocks, a Conv head's files, the score mode:
    e-c, MC dropout; the device and the resolved precision), so neither a model trained again into the same folder,
    nor other code, spaCy pipeline, blocks, head, mode or precision, reads the scores of before: int8 scores are never
    served for an fp32 request."""
    model = model_checksums(model_dir) or _sha256_of([os.path.join(model_dir, WEIGHTS)])  # a ModelDir's: no hashing
    model_dir = os.path.normpath(os.fspath(model_dir))
    options = "" if granularity == "sentence" else f"-{granularity}"
    if aggregation == "conv":
        head = _sha256_of([os.path.join(conv_dir, CONV_CONFIG), os.path.join(conv_dir, CONV_WEIGHTS)])
        options += f"-conv-{head[:8]}"
    options += "" if device == "cpu" else f"-{device}"  # cuda scores in bf16: not the cpu's fp32 scores
    options += mode.suffix()  # nothing for plain e
    options += "" if precision == "fp32" else f"-{precision}"  # int8 linear layers: not fp32's scores
    options += evidence  # '-arcs-512': where each sentence's evidence came from (training.scoring.passages)
    return f"{os.path.basename(model_dir)}-{model[:12]}-{scoring_code_sha256()[:8]}{options}.json"


def row_key(pair: tuple[str, str]) -> str:
    """A (document, claim) row's cache key."""
    return hashlib.sha256("\x1f".join(pair).encode()).hexdigest()


def cached(result) -> dict:
    """A DocumentScorer.scored result as the cache keeps it (JSON): what ZS, Conv and an ensemble read, or why it could
    not be scored."""
    if isinstance(result, Unscorable):
        return {"unscorable": result.error_type, "message": str(result)}
    return {k: result[k] for k in CACHED if k in result}


def restored(entry):
    """A cached entry as DocumentScorer.scored gave it: the result, or its Unscorable (None: a cache of before kept no
    reason)."""
    if entry is None:
        return Unscorable("Unscorable", "could not be scored (the cache keeps no reason)")
    if "unscorable" in entry:
        return Unscorable(entry["unscorable"], entry.get("message", ""))
    return entry


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


SOUND = {"matrix": lambda m: isinstance(m, list) and bool(m) and all(isinstance(r, list) and bool(r)
                                                                    and all(_number(x) for x in r) for r in m),
         "sentence_scores": lambda v: isinstance(v, list) and all(_number(x) for x in v),
         "summary_sentences": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
         "blocks": lambda v: isinstance(v, int) and not isinstance(v, bool)}  # what each CACHED field must be


def sound(entry) -> bool:
    """Whether a cached entry is one cached() writes (or None, a bench cache of before's unscorable row): a finite score
    with its fields in shape, or an unscorable row's reason; anything else (a value that is not a number, {}, a
    damaged file's bytes) is never trusted."""
    if entry is None:
        return True
    if not isinstance(entry, dict):
        return False
    if "unscorable" in entry:
        return isinstance(entry["unscorable"], str) and isinstance(entry.get("message", ""), str)
    return _number(entry.get("score")) and all(check(entry[k]) for k, check in SOUND.items() if k in entry)


def read_cache_counted(path: str) -> tuple[dict[str, dict], int]:
    """(row key -> sound cached entry, damaged lines and entries) of a score cache (lines of {key: entry}; a cache of
    one JSON object is one line): a line that is not JSON (a killed run cut it short, the file's bytes are damaged) and
    an entry that is not sound are left out, their rows scored again; a missing file holds none."""
    done: dict[str, dict] = {}
    damaged = 0
    try:
        with open(path, "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    chunk = json.loads(line)
                except ValueError:  # UnicodeDecodeError too: bytes that are not text
                    damaged += 1
                    continue
                if not isinstance(chunk, dict):
                    damaged += 1
                    continue
                for key, entry in chunk.items():
                    if sound(entry):
                        done[key] = entry
                    else:
                        damaged += 1
    except FileNotFoundError:
        pass
    return done, damaged


def read_cache(path: str) -> dict[str, dict]:
    """Row key -> sound cached entry of a score cache (read_cache_counted)."""
    return read_cache_counted(path)[0]


def append_cache(path: str, entries: dict) -> None:
    """Entries appended to a score cache as one line, its folder made; a last line a killed run cut short is ended
    first, so it costs only its own rows."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "ab+") as f:
        if f.seek(0, os.SEEK_END):
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(entries) + "\n").encode())


def rewrite_cache(path: str, entries: dict) -> None:
    """A score cache replaced, atomically, by one line of the given entries."""
    part = f"{path}.part"
    with open(part, "wb") as f:
        f.write((json.dumps(entries) + "\n").encode() if entries else b"")
    os.replace(part, path)


def _writable_cache(path: Optional[str], out) -> Optional[str]:
    """The cache path where its folder can be made and the file opened for appending, else None with one warning."""
    if path is None:
        return None
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as e:
        warn(f"cannot keep the score cache {path} ({e.strerror or e}); scoring without it (a rerun scores every row "
             "again)", out)
        return None
    return path


def cached_results(makers: Sequence[Callable], pairs: Sequence[tuple[str, str]], paths: Sequence[Optional[str]],
                   name: str = "", stream=None) -> list[list]:
    """Each model's DocumentScorer.scored results of the pairs (one list per model, in order): the rows its cache
    (paths, one per model) holds are read, the others scored a chunk at a time and appended to the cache as each
    chunk finishes, so an interrupted or failed run loses at most a chunk. A cache that cannot be written (None: no
    home folder) is done without, with one warning; damaged entries are scored again. makers build the models
    (DocumentScorer), only those with rows to score; models that split rows alike split each chunk once."""
    keys = [row_key(p) for p in pairs]
    rows = dict(zip(keys, pairs))
    out = stream or sys.stderr
    paths = [_writable_cache(path, out) for path in paths]  # one that cannot be written: checked now, scored without
    read = [read_cache_counted(path) if path else ({}, 0) for path in paths]
    done = [entries for entries, _ in read]
    todo = [k for k in rows if any(k not in cache for cache in done)]
    for path, (entries, damaged) in zip(paths, read):
        if damaged:  # the file rewritten with its sound entries alone, so the next run does not meet them again
            warn(f"{damaged} damaged line{'s' if damaged > 1 else ''} or entr{'ies' if damaged > 1 else 'y'} in the "
                 f"score cache {path} not trusted: {'their' if damaged > 1 else 'its'} rows are scored again", out)
            rewrite_cache(path, entries)
    if rows and any(paths):  # where the scores are kept, and what is left to score
        print(f"{name + ': ' if name else ''}{len(rows) - len(todo)} of {len(rows)} distinct rows read from the score "
              f"cache, {len(todo)} to score ({', '.join(p for p in paths if p)})", file=out, flush=True)
    models: dict[int, object] = {}

    def score(chunk: list[str]) -> list[str]:
        splits: dict = {}
        for i, (make, cache, path) in enumerate(zip(makers, done, paths)):
            need = [k for k in chunk if k not in cache]
            if not need:
                continue
            model = models[i] if i in models else models.setdefault(i, make())
            if model.split_key() not in splits:
                split = model.split([rows[k][0] for k in chunk], [rows[k][1] for k in chunk])
                splits[model.split_key()] = dict(zip(chunk, split))
            results = model.scored([rows[k] for k in need], [splits[model.split_key()][k] for k in need])
            entries = {k: cached(r) for k, r in zip(need, results)}
            if path:
                append_cache(path, entries)
            cache.update(entries)
        return chunk

    with_progress(score, name, chunk=SCORE_CHUNK, stream=out)(todo)
    return [[restored(cache[k]) for k in keys] for cache in done]