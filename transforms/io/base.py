"""What every reader shares: its options, the one-unit-in, one-record-or-DeadLetter-out contract, and field checks."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Union

from entailgen.schemas.records import DeadLetter, dead_letter

STAGE = "read"
UNDECODABLE_MARK = b"\xed\xb3\xbf"  # U+DCFF written with surrogatepass: what encoding.py puts for undecodable bytes
DEAD = "dead"
# Control characters (C0 and C1, DEL) but tab, line feed and carriage return: BEL, ESC, form feed... are read as
# spaces. NUL is not among them: a NUL means the file is not text of its encoding (BadEncoding, see writable).
CONTROLS_AS_SPACES = {c: " " for c in (*range(1, 0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in "\t\n\r"}


@dataclass(frozen=True)
class ReaderConfig:
    """Reader options; every field is JSON-able because the manifest records the config."""

    max_chars: int = 1000  # a longer text is a TooLong dead letter, not a slow parse
    default_item: str = "product"  # the review item when the file name does not say (amazon/imdb/yelp)
    encoding: str = "utf-8"  # the Kaggle GMB csv is latin-1
    chunk_bytes: int = 1 << 20  # UDS JSON is one 200 MB line: it is read in chunks of this size
    max_unit_chars: int = 1 << 24  # a JSON value still unparsed after this many characters is malformed
    max_document_chars: int = 50_000  # claims family: a longer document is a TooLong dead letter


class Reject(Exception):
    """Why a unit cannot become a record; the reader turns it into a DeadLetter, it never escapes a reader."""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def unit_id(source: str, where: object) -> str:
    """The source id of a unit: file name and 1-based line (or the dataset's own id)."""
    return f"{source}:{where}"


def dead(source: str, source_id: str, reject: Reject, raw: object) -> DeadLetter:
    """The DeadLetter of a rejected unit at the read stage."""
    return dead_letter(source, source_id, STAGE, reject.error_type, reject.message, raw)


def physical_lines(lines: Iterable[bytes], first_number: int = 1) -> Iterator[tuple[int, bytes]]:
    """(1-based number, line without its line end); an empty last piece (what follows a final newline) is no line."""
    previous = None
    for number, line in enumerate(lines, first_number):
        if previous is not None:
            yield number - 1, _strip_line_end(previous)
        previous = line
    if previous:
        yield number, _strip_line_end(previous)


def _strip_line_end(line: bytes) -> bytes:
    """The line without one trailing \\n or \\r\\n."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line


def decode(raw: bytes, config: ReaderConfig) -> str:
    """The line as text, without a byte-order mark; invalid bytes are a BadEncoding reject, never replaced silently."""
    try:
        text = raw.decode(config.encoding)
    except UnicodeDecodeError as exc:
        if UNDECODABLE_MARK in raw:  # see transforms/io/encoding.py: the BOM's encoding could not decode these bytes
            raise Reject("BadEncoding", "bytes the encoding of the file's byte-order mark cannot decode")
        raise Reject("BadEncoding", f"not valid {config.encoding}: {exc.reason} at byte {exc.start}")
    if "\x00" in text:  # UTF-16 without a byte-order mark decodes as UTF-8 with a NUL before every ASCII letter
        raise Reject("BadEncoding", f"a NUL character: not {config.encoding} text (UTF-16 without a byte-order mark?)")
    return text[1:] if text.startswith("\ufeff") else text


Parse = Callable[[str, str], object]


def read_line_units(lines: Iterable[bytes], source: str, config: ReaderConfig, parse: Parse, first_number: int = 1
                    ) -> Iterator[Union[object, DeadLetter]]:
    """One record or DeadLetter per physical line: parse(text, source_id) builds the record or raises Reject."""
    for number, raw in physical_lines(lines, first_number):
        source_id = unit_id(source, number)
        try:
            text = decode(raw, config)
            if not text.strip():
                raise Reject("EmptyLine", "blank line")
            yield parse(text, source_id)
        except Reject as reject:
            yield dead(source, source_id, reject, raw)


def checked_text(value: object, name: str, config: ReaderConfig) -> str:
    """A text field, stripped, control characters as spaces: a string neither blank nor longer than config.max_chars."""
    if not isinstance(value, str):
        raise Reject("BadField", f"{name} is {type(value).__name__}, not a string")
    text = controls_as_spaces(value).strip()
    if not text:
        raise Reject("EmptyText", f"{name} is empty")
    writable(text, name)
    if len(text) > config.max_chars:
        raise Reject("TooLong", f"{name} has {len(text)} characters > max {config.max_chars}")
    return text


def controls_as_spaces(text: str) -> str:
    """The text with its control characters read as spaces: a terminal's BEL or ESC, a page's form feed are no words,
    and kept they would stop sentence splitting (a "sentence" spanning three) and reach premises verbatim."""
    return text.translate(CONTROLS_AS_SPACES)


def json_object(text: str) -> dict:
    """The JSON object on a line; anything else (broken JSON, a list, a number) is a reject."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Reject("MalformedJson", f"not JSON: {exc}")
    if not isinstance(value, dict):
        raise Reject("NotAnObject", f"a JSON {type(value).__name__}, not an object")
    return value


def field(record: dict, *names: str) -> object:
    """The value of the first of names present (and not null) in a JSON record, else a MissingField reject."""
    for name in names:
        if record.get(name) is not None:
            return record[name]
    raise Reject("MissingField", "no " + " or ".join(repr(n) for n in names) + " field")


def number(value: object, name: str) -> float:
    """A finite JSON number (booleans are not numbers here)."""
    try:
        finite = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        finite = False
    if not finite:
        raise Reject("BadValue", f"{name} is {str(value)[:50]!r}, not a finite number")
    return float(value)


def checked_token(value: object, name: str) -> str:
    """A token: a non-empty string that can be written as UTF-8 (JSON escapes can smuggle in lone surrogates)."""
    if not isinstance(value, str):
        raise Reject("BadField", f"{name} is {type(value).__name__}, not a string")
    if not value.strip():
        raise Reject("EmptyText", f"{name} is empty")
    writable(value, name)
    return value


def writable(text: str, name: str) -> None:
    """A BadEncoding reject for text no record may hold: a lone surrogate (JSON escapes) or a NUL character."""
    if not utf8(text):
        raise Reject("BadEncoding", f"{name} has a lone surrogate, not writable as UTF-8")
    if "\x00" in text:
        raise Reject("BadEncoding", f"{name} has a NUL character")


def utf8(text: str) -> bool:
    """Whether text can be written out as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_ATTACH_LEFT = {",", ".", "!", "?", ":", ";", "%", ")", "]", "}", "...", "'s", "n't", "'re", "'ve", "'ll", "'d", "'m",
                "’s", "n’t"}
_ATTACH_RIGHT = {"(", "[", "{", "$", "#"}


def detokenize(tokens: list[str]) -> str:
    """Tokens as readable text ("said, the U.S. didn't" not "said , the U.S. did n't"), for parsing and premises."""
    text = ""
    for i, token in enumerate(tokens):
        if i and token.lower() not in _ATTACH_LEFT and tokens[i - 1] not in _ATTACH_RIGHT:
            text += " "
        text += token
    return text
