"""`entailgen benchmarks fetch NAME --to DIR`: a benchmark's public files, downloaded (or given by hand with --from),
checked, converted into the files `evaluate --benchmark` reads, and written into DIR whole or not at all.

Every source file is named by a commit-pinned URL (`{mirror}/{owner/repo}/{commit}/{path}`, raw.githubusercontent.com
by default), so its bytes are fixed. Where a file's sha256 is known (`RemoteFile.sha256`: every file whose real bytes
could be read) a download or a hand-given copy with other bytes is refused; a download must also deliver the length
its server announced, within the deadline, and a text source be text. What a fetch got is recorded in DIR/fetch.json.
The converters (training.benchmarks.sources) hold each benchmark's own rules.
"""
from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import http.client
import io
import json
import os
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

import entailgen
from entailgen.training.benchmarks.files import BenchmarkError, csv_rows

MIRROR = "https://raw.githubusercontent.com"  # {MIRROR}/{owner/repo}/{commit}/{path}: what a mirror serves too
MIRROR_ENV = "ENTAILGEN_BENCHMARK_MIRROR"
RECORD = "fetch.json"  # what a fetch writes last into DIR: its sources (URL, sha256) and files (rows, sha256)
MARKER = ".entailgen-fetch"  # written first into the .incomplete folder: a leftover one is fetch's to replace
INCOMPLETE = ".incomplete"
BINARY = (".xlsm", ".xlsx")  # source files read as bytes (workbooks); every other one is text
AS_GIVEN = "as given"  # a source's bytes before gzip or a BOM is read (decoded)


class FetchError(ValueError):
    """A source that cannot be reached or read, bytes other than the pinned ones, or a DIR fetch must not write: one
    line naming the URL or file and what is wrong."""


@dataclass(frozen=True)
class RemoteFile:
    """One public source file: its repository, the commit that fixes its bytes, its path there, and its sha256 when
    known (None: recorded, not checked)."""

    repo: str
    commit: str
    path: str
    sha256: Optional[str] = None

    @property
    def name(self) -> str:
        """The file's own name: what --from DIR looks for."""
        return os.path.basename(self.path)

    def url(self, mirror: str) -> str:
        return f"{mirror.rstrip('/')}/{self.repo}/{self.commit}/{self.path}"


@dataclass(frozen=True)
class Converted:
    """A benchmark's files as evaluate reads them (name -> text), rows per file, and what was left out, in words."""

    files: dict[str, str]
    rows: dict[str, int]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    """A NAME of `benchmarks fetch`: its source files and the converter from their local copies (keyed by
    RemoteFile.path) to the files evaluate reads."""

    name: str
    summary: str
    files: tuple[RemoteFile, ...]
    convert: Callable[[dict[str, str]], Converted]


@dataclass(frozen=True)
class FetchOptions:
    """Where the sources come from (a mirror, or a folder of hand-downloaded files) and whether DIR may be replaced."""

    mirror: str = MIRROR
    from_dir: Optional[str] = None
    overwrite: bool = False
    timeout: float = 60.0  # seconds one read may wait
    deadline: float = 1800.0  # seconds the whole download may take: a server that trickles is stopped
    progress: Callable[[str], None] = field(default=lambda line: None, compare=False)
    progress_every: float = 5.0  # seconds between two byte counts while downloading


def sha256_of(path: str) -> str:
    """The sha256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_mirror(mirror: str, said: str = "") -> None:
    """FetchError in one line for a mirror that is not a URL a download can use, named as the user gave it (`said`:
    '--mirror URL' unless another)."""
    parts = urllib.parse.urlsplit(mirror)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
        raise FetchError(f"{said or f'--mirror {mirror}'}: not a URL (http://HOST/..., https://HOST/... or "
                         "file:///FOLDER serving {owner/repo}/{commit}/{path})")


def chosen_mirror(given: Optional[str], environ: Mapping[str, str] = os.environ) -> str:
    """The mirror a fetch downloads from: --mirror, else $ENTAILGEN_BENCHMARK_MIRROR, else raw.githubusercontent.com;
    FetchError in one line naming the flag or the variable that gave one that is not a URL."""
    if given is not None:
        check_mirror(given)
        return given
    if environ.get(MIRROR_ENV):
        check_mirror(environ[MIRROR_ENV], f"{MIRROR_ENV}={environ[MIRROR_ENV]}")
        return environ[MIRROR_ENV]
    return MIRROR


def download(url: str, path: str, timeout: float, ends_at: float = float("inf"),
             progress: Callable[[str], None] = lambda line: None, every: float = 5.0) -> None:
    """url's bytes at path, their count said every `every` seconds; FetchError in one line when it cannot be
    reached, answers with an error, sends fewer bytes than it announced, or is not done by `ends_at` (monotonic)."""
    hint = "; give --from DIR with the files downloaded by hand"
    got, length = 0, None
    try:
        with urllib.request.urlopen(url, timeout=max(0.001, min(timeout, ends_at - time.monotonic()))) as response, \
                open(path, "wb") as f:
            announced = response.headers.get("Content-Length") if hasattr(response, "headers") else None
            length = int(announced) if announced and announced.strip().isdigit() else None
            said_at, read = time.monotonic(), getattr(response, "read1", response.read)
            while True:
                if time.monotonic() > ends_at:
                    raise FetchError(f"cannot fetch {url}: not done by the deadline ({got:,} of "
                                     f"{f'{length:,}' if length is not None else 'unknown'} bytes){hint}")
                block = read(1 << 16)  # what has come, not a full block: the deadline is checked between
                if not block:
                    break
                f.write(block)
                got += len(block)
                if time.monotonic() - said_at >= every:
                    said_at = time.monotonic()
                    progress(f"  {got:,} of {f'{length:,}' if length is not None else 'unknown'} bytes")
    except FetchError:
        raise
    except urllib.error.HTTPError as e:
        raise FetchError(f"cannot fetch {url}: HTTP {e.code} {e.reason}{hint}")
    except (urllib.error.URLError, OSError, http.client.HTTPException) as e:  # HTTPException: a cut-off answer
        reason = getattr(e, "reason", None) or e
        reason = getattr(reason, "strerror", None) or reason  # 'Connection refused', not '[Errno 111] ...'
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            reason = f"no answer within {timeout:g} s" if time.monotonic() < ends_at else (
                f"not done by the deadline ({got:,} bytes)")
        raise FetchError(f"cannot reach {url}: {reason}{hint}")
    except ValueError as e:  # urllib's 'unknown url type'
        raise FetchError(f"cannot fetch {url}: {e}")
    if length is not None and got != length:
        raise FetchError(f"cannot fetch {url}: the server sent {got:,} of the {length:,} bytes it announced (the "
                         f"connection was cut); fetch again{hint.replace('; give', ', or give')}")


def decoded(data: bytes, said: str) -> tuple[str, list[tuple[str, bytes]]]:
    """(the text a text source's bytes hold; each form the bytes took on the way, (how, bytes): as given, then
    gunzipped, then the text as UTF-8 where a BOM or UTF-16 was read): gzip undone, UTF-16 and UTF-8 read by their
    BOM, so the pin can be checked on the text; FetchError naming `said` when the bytes are not text at all (the wrong
    file)."""
    forms = [(AS_GIVEN, data)]
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise FetchError(f"{said}: a damaged gzip file ({e})")
        forms.append(("gzip", data))
    try:
        if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            text, how = data.decode("utf-16"), "UTF-16"
        else:
            text, how = data.decode("utf-8-sig"), "UTF-8 with a BOM" if data.startswith(codecs.BOM_UTF8) else ""
    except UnicodeDecodeError:
        raise FetchError(f"{said}: its content is not text (neither UTF-8, UTF-16 with a BOM nor either gzipped): "
                         "a wrong or damaged file") from None
    if how:
        forms.append((how, text.encode("utf-8")))
    return text, forms


def as_text(path: str, said: str, into: str) -> tuple[str, list[tuple[str, bytes]]]:
    """(the path of path's text as UTF-8: itself when it is, else a decoded copy in `into`; the forms its bytes took,
    as decoded() gives them)."""
    with open(path, "rb") as f:
        text, forms = decoded(f.read(), said)
    if len(forms) == 1:
        return path, forms  # UTF-8 already
    folder = os.path.join(into, str(len(os.listdir(into))))  # the file's own name kept: some converters read it
    os.makedirs(folder)
    copy = os.path.join(folder, os.path.basename(path))
    with open(copy, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return copy, forms


def find_by_hand(folder: str, file: RemoteFile) -> Optional[str]:
    """A hand-downloaded copy of file under folder: folder/NAME, else the one file of that name anywhere under it (a
    clone of the repository); None when there is none, FetchError when there is more than one."""
    direct = os.path.join(folder, file.name)
    if os.path.isfile(direct):
        return direct
    found = sorted(os.path.join(root, file.name) for root, _, names in os.walk(folder) if file.name in names)
    if len(found) <= 1:
        return found[0] if found else None
    listed = ", ".join(found[:2]) + (", ..." if len(found) > 2 else "")
    raise FetchError(f"--from {folder}: {len(found)} files named {file.name} ({listed}); give the folder holding the "
                     "one to use")


def checked(file: RemoteFile, path: str, said: str, forms: Sequence[tuple[str, bytes]] = ()) -> dict:
    """The record of one source file (where from, sha256, size; for a copy read through gzip or a BOM, how and its
    text's sha256); FetchError when its sha256 is pinned and neither its bytes nor a form they took on the way
    (forms: decoded()'s; a gzip or UTF-16 copy of the pinned file holds its text) has it."""
    digest = sha256_of(path)
    record = {"path": file.path, "from": said, "sha256": digest, "bytes": os.path.getsize(path),
              "sha256_pinned": file.sha256 is not None}
    read = [how for how, _ in forms[1:]]
    digests = [hashlib.sha256(data).hexdigest() for _, data in forms[1:]]
    if read:
        record.update(read_as=", ".join(read), text_sha256=digests[-1])
    if file.sha256 is not None and file.sha256 not in (digest, *digests):
        text = f" ({' and '.join(read)}, its text's sha256 {digests[-1]})" if read else ""
        raise FetchError(f"{said}: sha256 {digest}{text}, not the pinned {file.sha256} of {file.repo}@"
                         f"{file.commit[:7]} {file.path} (a changed or damaged file)")
    return record


def by_hand(folder: str, files: Sequence[RemoteFile]) -> dict[str, str]:
    """Repository path -> the hand-downloaded copy of each file; FetchError naming every missing one at once, so a
    user downloading by hand finds them all in one run."""
    found = {file.path: find_by_hand(folder, file) for file in files}
    missing = [file for file in files if found[file.path] is None]
    if missing:
        counted = f"{len(missing)} of {len(files)} files; " if len(missing) > 1 else ""
        raise FetchError(f"--from {folder}: no {', '.join(f.name for f in missing)} in it ({counted}download "
                         f"{' '.join(f.url(MIRROR) for f in missing)})")
    return found


def gather(benchmark: Benchmark, options: FetchOptions, downloads: str) -> tuple[dict[str, str], list[dict]]:
    """(repository path -> local copy as UTF-8 text where it is text, their records): each source downloaded into
    `downloads` or found under --from, checked against its pin, its text decoded."""
    local, records = {}, []
    given = by_hand(options.from_dir, benchmark.files) if options.from_dir is not None else {}
    ends_at = time.monotonic() + options.deadline
    texts = os.path.join(downloads, "text")
    os.makedirs(texts)
    for file in benchmark.files:
        if options.from_dir is not None:
            path = said = given[file.path]
        else:
            said = file.url(options.mirror)
            os.makedirs(os.path.join(downloads, str(len(local))))
            path = os.path.join(downloads, str(len(local)), file.name)  # its own name: some converters read it
            options.progress(f"fetching {said}")
            download(said, path, options.timeout, ends_at, options.progress, options.progress_every)
        text, forms = (path, ()) if file.path.endswith(BINARY) else as_text(path, said, texts)
        records.append(checked(file, path, said, forms))
        local[file.path] = text
    return local, records


def check_target(to: str, overwrite: bool) -> None:
    """Refuse (FetchError) a DIR that is a file, or holds files no fetch wrote, or a fetch's files without
    --overwrite: a user's files are never replaced."""
    if os.path.isfile(to):
        raise FetchError(f"--to {to} is a file, not a folder")
    held = sorted(os.listdir(to)) if os.path.isdir(to) else []
    if not held:
        return
    try:
        with open(os.path.join(to, RECORD), encoding="utf-8") as f:
            listed = set(json.load(f)["files"]) | {RECORD}
    except (OSError, ValueError, KeyError, TypeError):
        raise FetchError(f"--to {to} holds files no benchmarks fetch wrote; give an empty or new folder")
    others = [name for name in held if name not in listed]
    if others:
        raise FetchError(f"--to {to} holds files its {RECORD} does not list ({', '.join(others[:3])}); give an empty "
                         "or new folder")
    if not overwrite:
        raise FetchError(f"--to {to} holds an earlier fetch; pass --overwrite to replace it")
    if os.path.exists(aside(to)):
        raise FetchError(f"{aside(to)} is in the way of replacing {to}; move it away")


def aside(to: str) -> str:
    """Where an earlier fetch at DIR waits while the new one is renamed in."""
    return to.rstrip("/" + os.sep) + ".old"


def start_folder(to: str) -> str:
    """The marked DIR.incomplete folder a fetch writes in; a leftover of an interrupted fetch is replaced, a folder of
    that name that no fetch made is refused."""
    building = to.rstrip("/" + os.sep) + INCOMPLETE
    if os.path.exists(building):
        if not os.path.isfile(os.path.join(building, MARKER)):
            raise FetchError(f"{building} exists and no benchmarks fetch made it; move it away")
        shutil.rmtree(building)
    os.makedirs(building)
    with open(os.path.join(building, MARKER), "w", encoding="utf-8") as f:
        f.write("a benchmarks fetch in progress; renamed to its --to folder when complete\n")
    return building


def swap_in(building: str, to: str) -> None:
    """The complete folder renamed to DIR; an earlier fetch at DIR (checked by check_target) set aside first and
    removed only once the new one is in."""
    os.remove(os.path.join(building, MARKER))
    if os.path.isdir(to) and not os.listdir(to):
        os.rmdir(to)  # an empty folder given as DIR
    if not os.path.isdir(to):
        os.rename(building, to)
        return
    old = aside(to)
    os.rename(to, old)
    os.rename(building, to)
    shutil.rmtree(old)


def fetch(benchmark: Benchmark, to: str, options: FetchOptions = FetchOptions()) -> dict:
    """DIR holding the benchmark's converted files and fetch.json (its sources' URLs and sha256s, and each file's
    rows and sha256), written whole or not at all; returns that record."""
    check_mirror(options.mirror)
    check_target(to, options.overwrite)
    building = start_folder(to)
    try:
        downloads = os.path.join(building, ".downloads")
        os.makedirs(downloads)
        local, sources = gather(benchmark, options, downloads)
        try:
            converted = benchmark.convert(local)
        except FetchError as e:  # named by where each file came from, not by its passing copy
            said = str(e)
            for record in sources:
                said = said.replace(local[record["path"]], record["from"])
            raise FetchError(said) from None
        shutil.rmtree(downloads)
        files = {}
        for name, text in converted.files.items():
            path = os.path.join(building, name)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            files[name] = {"rows": converted.rows[name], "sha256": sha256_of(path)}
        record = {"benchmark": benchmark.name, "entailgen_version": entailgen.__version__, "files": files,
                  "notes": list(converted.notes), "sources": sources}
        with open(os.path.join(building, RECORD), "w", encoding="utf-8") as f:
            json.dump(record, f, indent=2)
        swap_in(building, to)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)  # ours alone: what was at DIR is as it was
        raise
    return record


def fetch_records(paths: Sequence[str]) -> list[str]:
    """Those of paths that are a fetch's own record (fetch.json: benchmark, files, sources), which DIR/*.json
    matches beside the sets."""
    found = []
    for path in paths:
        if os.path.basename(path) != RECORD:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError):
            continue  # not a record: read as a set, and refused there in one line if it is not one
        if isinstance(record, dict) and {"benchmark", "files", "sources"} <= set(record):
            found.append(path)
    return found


def summary_line(record: dict, to: str) -> str:
    """What a fetch wrote, in one line: each file and its rows, and what was left out."""
    files = ", ".join(f"{name} ({entry['rows']:,} rows)" for name, entry in record["files"].items())
    notes = "".join(f"; {note}" for note in record["notes"])
    return f"{record['benchmark']}: wrote {files} into {to}{notes} (sources and sha256s in {RECORD})"


# Reading and writing the sources' tables, shared by the converters.

def table_rows(path: str, columns: Sequence[str], delimiter: str = ",") -> list[dict]:
    """The rows of a source's CSV (TSV) file (files.csv_rows), a FetchError where it cannot be read or lacks a
    column."""
    try:
        return csv_rows(path, columns, "file", delimiter=delimiter)
    except BenchmarkError as e:
        raise FetchError(str(e)) from None


def read_json(path: str):
    """A source's JSON; FetchError naming the file when it cannot be read or is not JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise FetchError(f"cannot read {path} as JSON: {getattr(e, 'strerror', None) or e}")


def csv_text(rows: list[dict], columns: Sequence[str]) -> str:
    """Rows as CSV text with a header (the rows' own keys, else the given columns)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
