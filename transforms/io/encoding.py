"""A file's bytes as UTF-8 whatever byte-order mark it starts with, so every reader (and format detection) sees UTF-8.

A UTF-16 file read as UTF-8 is valid but wrong ('\\x00H\\x00e...'): the BOM decides the encoding, and a unit that the
BOM's encoding cannot decode is marked with a byte sequence no UTF-8 decoder accepts, so it becomes a BadEncoding dead
letter in the reader instead of a garbled record.
"""
from __future__ import annotations

import codecs
from typing import Iterable, Iterator, Optional

# Longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
UNDECODABLE = "entailgen.undecodable"
# A lone surrogate: written with surrogatepass it is b"\xed\xb3\xbf" (base.UNDECODABLE_MARK), which no strict UTF-8
# decode accepts.
codecs.register_error(UNDECODABLE, lambda exc: ("\udcff", exc.end))


def _head(chunks: Iterator[bytes], size: int) -> bytes:
    """At least size bytes from the front of chunks (fewer only at the end of the stream)."""
    head = b""
    while len(head) < size:
        chunk = next(chunks, None)
        if chunk is None:
            break
        head += chunk
    return head


def utf8_chunks(chunks: Iterable[bytes]) -> tuple[Iterator[bytes], Optional[str]]:
    """(the stream as UTF-8 without its BOM, the encoding the BOM named or None): no BOM, the bytes pass unchanged."""
    chunks = iter(chunks)
    head = _head(chunks, 4)
    encoding = next((name for bom, name in BOMS if head.startswith(bom)), None)
    if encoding is None:
        return _chain(head, chunks), None
    bom = next(bom for bom, name in BOMS if name == encoding)
    rest = _chain(head[len(bom):], chunks)
    return (rest if encoding == "utf-8" else _transcoded(rest, encoding)), encoding


def _chain(head: bytes, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """head, then the rest of chunks."""
    if head:
        yield head
    yield from chunks


def _transcoded(chunks: Iterator[bytes], encoding: str) -> Iterator[bytes]:
    """chunks decoded from encoding and written as UTF-8; undecodable bytes become the UNDECODABLE mark."""
    decoder = codecs.getincrementaldecoder(encoding)(UNDECODABLE)
    for chunk in chunks:
        text = decoder.decode(chunk)
        if text:
            yield text.encode("utf-8", "surrogatepass")
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail.encode("utf-8", "surrogatepass")


def lines_of(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a byte stream, each with its b"\\n" (the last one may have none), like readline; a line longer
    than a chunk is joined once, not copied per chunk."""
    pending: list[bytes] = []
    for chunk in chunks:
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        lines = chunk.split(b"\n")
        yield b"".join(pending) + lines[0] + b"\n"
        for line in lines[1:-1]:
            yield line + b"\n"
        pending = [lines[-1]] if lines[-1] else []
    tail = b"".join(pending)
    if tail:
        yield tail


def first_line(chunks: Iterable[bytes], limit: int) -> bytes:
    """The first line of a byte stream without its line end, read until its end (or limit bytes, for one-line files)."""
    head = b""
    for chunk in chunks:
        head += chunk
        if b"\n" in chunk or len(head) >= limit:
            break
    return head.split(b"\n", 1)[0][:limit].rstrip(b"\r")


# Compression told by a file's first bytes, against the extension Beam's FileSystems decompresses it by.
MAGIC = ((b"\x1f\x8b", "gzip", ".gz"), (b"BZh", "bzip2", ".bz2"), (b"\x28\xb5\x2f\xfd", "zstd", ".zst"))


def compression_mismatch(path: str, head: bytes) -> Optional[str]:
    """Why a file's first bytes and its name disagree about compression (gzip bytes in `docs.jsonl`, plain text in
    `docs.jsonl.gz`), or None: it is read by its name, so its every line would be garbage or the read would fail."""
    found = next(((kind, ext) for magic, kind, ext in MAGIC if head.startswith(magic)), None)
    if found and not path.endswith(found[1]):
        return f"{path} is {found[0]}-compressed but its name does not end in {found[1]}; rename it {path}{found[1]}"
    named = next(((kind, ext) for _, kind, ext in MAGIC if path.endswith(ext)), None)
    if named and not found:
        return f"{path} ends in {named[1]} but is not {named[0]}-compressed; rename it without {named[1]}"
    return None
