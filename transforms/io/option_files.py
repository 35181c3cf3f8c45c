"""Files that options name (--candidates, --kb, --phrase-file, score --input, a refresh config, a benchmark's files):
refused before the job when missing, a directory or empty, and read line by line so a bad line is named by its true
line number, or read whole as `run` reads its inputs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from entailgen.transforms.io.encoding import compression_mismatch, utf8_chunks

BOM = b"\xef\xbb\xbf"
CHUNK = 1 << 16


def check_compression(flag: str, path: str) -> None:
    """ValueError (one line) for a file whose first bytes and name disagree about compression (encoding.MAGIC)."""
    try:
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            head = handle.read(8)
    except OSError:
        return  # a directory or no permission: the reading check says so in its own words
    mismatch = compression_mismatch(path, head)
    if mismatch:
        raise ValueError(f"{flag}: {mismatch}")


def file_text(path: str) -> str:
    """A whole file's text as `run` reads its inputs (transforms.io.read): decompressed by its name (.gz, .bz2, ...;
    a name its first bytes disagree with refused), a byte-order mark deciding the encoding (UTF-8, UTF-16, UTF-32),
    else UTF-8; line ends as written. OSError, UnicodeDecodeError or ValueError (a compression mismatch) where not."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        mismatch = compression_mismatch(path, handle.read(8))
    if mismatch:
        raise ValueError(mismatch)
    with FileSystems.open(path) as handle:
        chunks, _ = utf8_chunks(iter(lambda: handle.read(CHUNK), b""))
        return b"".join(chunks).decode("utf-8")  # a unit its BOM's encoding cannot decode: no UTF-8 (encoding.py)


def check_option_file(flag: str, path: str) -> None:
    """ValueError (one line) when the file a flag names is missing, unreadable (a directory), or has no line that is
    not blank; reads only as far as its first non-blank byte."""
    if not FileSystems.exists(path):
        raise ValueError(f"{flag}: file not found: {path}")
    check_compression(flag, path)
    try:
        with FileSystems.open(path) as handle:
            first = True
            for chunk in iter(lambda: handle.read(CHUNK), b""):
                if first and chunk.startswith(BOM):
                    chunk = chunk[len(BOM):]
                first = False
                if chunk.strip():
                    return
    except OSError as error:  # a directory, no permission: one line, not a traceback
        raise ValueError(f"{flag}: cannot read {path}: {error.strerror or error}")
    raise ValueError(f"{flag}: {path} is empty")


@dataclass(frozen=True)
class OptionLine:
    """One line of an option file: its 1-based number, its text (None when it is not UTF-8) and its bytes."""

    number: int
    text: Optional[str]
    raw: bytes


def option_file_lines(path: str) -> list[OptionLine]:
    """The file's lines, split at '\\n' only (str.splitlines also splits at form feeds and U+2028, which shifts every
    later line number), a UTF-8 byte-order mark and each line's '\\r' removed; a line that is not UTF-8 has text
    None, for the caller to refuse or dead-letter by its number."""
    with FileSystems.open(path) as handle:
        data = handle.read()
    data = data[len(BOM):] if data.startswith(BOM) else data
    lines = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        raw = raw.removesuffix(b"\r")
        try:
            text: Optional[str] = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        lines.append(OptionLine(number, text, raw))
    if lines and not lines[-1].raw:  # the final line end ends a line, it does not start one
        lines.pop()
    return lines
