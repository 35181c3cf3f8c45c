"""The members of a big JSON file's "data" object one at a time, so a 200 MB UDS file is never loaded whole."""
from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

from entailgen.schemas.records import RAW_LIMIT
from entailgen.transforms.io.base import Reject

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],]', re.S)
_UNDECODABLE = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8, kept by surrogateescape


@dataclass(frozen=True)
class Member:
    """One member of the "data" object: its key and value, or why it could not be read (error set, value None)."""

    key: Optional[str]  # None when the file's structure broke before a key could be read
    value: object
    raw: str  # the member's JSON text, cut to RAW_LIMIT, undecodable bytes shown as U+FFFD
    offset: int  # where the member starts in the file, in characters
    error: Optional[Reject] = None
    fatal: bool = False  # the structure is broken here: nothing after this member can be read


def clean(text: str) -> str:
    """Text without the surrogates that stand for undecodable bytes (they could not be written out as UTF-8)."""
    return text[:RAW_LIMIT].encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def value_end(text: str, start: int) -> Optional[int]:
    """Where the (possibly malformed) JSON value at start ends, by bracket matching; None if it does not end in text."""
    depth = 0
    for match in _STRUCTURE.finditer(text, start):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            if depth == 0:
                return match.start()
            depth -= 1
            if depth == 0:
                return match.end()
        elif token == ",":
            if depth == 0:
                return match.start()
        elif depth == 0:
            return match.end()
    return None


class _Window:
    """The unread rest of a byte stream as text, read ahead only as far as the value under way needs."""

    def __init__(self, chunks: Iterable[bytes], max_chars: int):
        self.chunks = iter(chunks)
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.max_chars = max_chars
        self.text = ""
        self.pos = 0
        self.consumed = 0  # characters dropped from the front of text, for error positions
        self.eof = False

    def more(self) -> bool:
        """Read on; False at the end of the stream, or when the value under way is already max_chars long."""
        if self.eof or len(self.text) - self.pos >= self.max_chars:
            return False
        self.consumed += self.pos
        self.text, self.pos = self.text[self.pos:], 0
        chunk = next(self.chunks, None)
        if chunk is None:
            self.eof = True
            self.text += self.decoder.decode(b"", final=True)
        else:
            self.text += self.decoder.decode(chunk)
        return True

    def peek(self) -> str:
        """The next character that is not JSON whitespace, "" at the end."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        """Consume the next character if it is one of chars; returns it, or "" (nothing consumed) if not."""
        char = self.peek()
        if char and char in chars:
            self.pos += 1
            return char
        return ""

    @property
    def offset(self) -> int:
        """The position in the whole stream, in characters."""
        return self.consumed + self.pos

    def take(self, end: int) -> str:
        """The text from the position to end, consumed."""
        raw, self.pos = self.text[self.pos:end], end
        return raw

    def value(self) -> tuple[object, str, Optional[str], bool]:
        """(value, raw, error, ended): a malformed value is skipped to its end; ended False if it has none."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if self.more():
                    continue
                error = f"{exc.msg} at character {self.consumed + exc.pos}"
            except RecursionError:
                error = "nested too deeply"
            else:
                if end < len(self.text) or not self.more():  # a number may go on in the next chunk
                    return value, self.take(end), None, True
                continue
            end = value_end(self.text, self.pos)
            return None, self.take(len(self.text) if end is None else end), error, end is not None

    def broken(self, what: str) -> Member:
        """The rest of the stream as one malformed unit: after a structural error nothing more can be trusted."""
        while len(self.text) - self.pos < RAW_LIMIT and self.more():  # the same raw text whatever the chunk size
            pass
        where, rest = self.offset, self.text[self.pos:self.pos + RAW_LIMIT]
        self.pos = len(self.text)
        return Member(None, None, clean(rest), where, Reject("MalformedJson", f"{what} at character {where}"), True)


def _key(window: _Window) -> Optional[str]:
    """The next object key and its ':' consumed, or None if the structure is broken there."""
    if window.peek() != '"':
        return None
    key, _, error, _ = window.value()
    return clean(key) if error is None and window.expect(":") else None


def _member(window: _Window) -> Iterator[Member]:
    """The next "key": value of an object (a Member); a structural break yields the rest as one and ends."""
    window.peek()
    offset, key = window.offset, _key(window)
    if key is None:
        yield window.broken("expected a key and ':'")
        return
    value, raw, error, ended = window.value()
    if error is not None:
        why = error if ended else "unterminated: the file ends inside it"
        yield Member(key, None, clean(raw), offset, Reject("MalformedJson", f"{key!r}: {why}"), not ended)
    elif _UNDECODABLE.search(raw):
        yield Member(key, None, clean(raw), offset, Reject("BadEncoding", f"{key!r}: bytes that are not UTF-8"))
    else:
        yield Member(key, value, clean(raw), offset)


def _members(window: _Window) -> Iterator[Member]:
    """Every member of the object starting here; it ends at the closing brace or at a structural break."""
    if not window.expect("{"):
        yield window.broken("expected an object")
        return
    if window.expect("}"):
        return
    while True:
        for member in _member(window):
            yield member
            if member.fatal:
                return
        if window.expect("}"):
            return
        if not window.expect(","):
            yield window.broken("expected ',' or '}'")
            return


def data_members(chunks: Iterable[bytes], max_chars: int, name: str = "data") -> Iterator[Member]:
    """Members of the top-level object's `name` object (other top-level members are read and passed over)."""
    window = _Window(chunks, max_chars)
    if not window.peek():
        return
    found = False
    if not window.expect("{"):
        yield window.broken("expected a JSON object")
        return
    while window.peek() != "}":
        offset, key = window.offset, _key(window)  # peek() in the loop test skipped the space before the key
        if key is None:
            yield window.broken("expected a key and ':'")
            return
        if key == name:
            found = True
            for member in _members(window):
                yield member
                if member.fatal:
                    return
        else:
            _, raw, error, ended = window.value()
            if error is not None:
                yield Member(key, None, clean(raw), offset, Reject("MalformedJson", f"top-level {key!r}: {error}"),
                             not ended)
                if not ended:
                    return
        if not window.expect(",") and window.peek() != "}":
            yield window.broken("expected ',' or '}'")
            return
    window.expect("}")
    if window.peek():
        yield window.broken("data after the end of the JSON object")
    elif not found:
        yield Member(None, None, "", 0, Reject("MissingField", f"no {name!r} object in the file"))


def array_items(chunks: Iterable[bytes], max_chars: int) -> Iterator[Member]:
    """Items of a top-level JSON array (the DNC's data files), one at a time; the key is the 0-based index."""
    window = _Window(chunks, max_chars)
    if not window.peek():
        return
    if not window.expect("["):
        yield window.broken("expected a JSON array")
        return
    index = 0
    while not window.expect("]"):
        offset = window.offset
        value, raw, error, ended = window.value()
        if error is not None:
            why = error if ended else "unterminated: the file ends inside it"
            yield Member(str(index), None, clean(raw), offset, Reject("MalformedJson", f"item {index}: {why}"),
                         not ended)
            if not ended:
                return
        elif _UNDECODABLE.search(raw):
            yield Member(str(index), None, clean(raw), offset, Reject("BadEncoding", f"item {index}: bytes that "
                                                                                      "are not UTF-8"))
        else:
            yield Member(str(index), value, clean(raw), offset)
        index += 1
        if not window.expect(",") and window.peek() != "]":
            yield window.broken("expected ',' or ']'")
            return
    if window.peek():
        yield window.broken("data after the end of the JSON array")
