"""pyarrow and JSON schemas derived from the record dataclasses, so the two can never drift apart."""
from __future__ import annotations

import dataclasses
import json
import typing
from functools import lru_cache
from typing import Any, Union

import pyarrow as pa

from entailgen.schemas.records import RECORD_TYPES

_ARROW_SCALARS = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
_JSON_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _unwrap_optional(tp) -> tuple[Any, bool]:
    """(inner type, nullable) for Optional[X]."""
    if typing.get_origin(tp) is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], True
    return tp, False


@lru_cache(maxsize=None)
def _hints(cls) -> dict[str, Any]:
    """A record type's resolved annotations, once per type (from_row reads them for every row it rebuilds)."""
    return typing.get_type_hints(cls)


def arrow_type(tp) -> pa.DataType:
    """Arrow type of a field annotation: scalars, Optional, list[...] and nested dataclasses."""
    tp, _ = _unwrap_optional(tp)
    if tp in _ARROW_SCALARS:
        return _ARROW_SCALARS[tp]
    if typing.get_origin(tp) is list:
        return pa.list_(arrow_type(typing.get_args(tp)[0]))
    if dataclasses.is_dataclass(tp):
        return pa.struct([_arrow_field(f.name, t) for f, t in _fields_with_types(tp)])
    raise TypeError(f"no arrow type for {tp!r}")


@lru_cache(maxsize=None)
def _fields_with_types(cls) -> tuple:
    hints = _hints(cls)
    return tuple((f, hints[f.name]) for f in dataclasses.fields(cls))


def _arrow_field(name: str, tp) -> pa.Field:
    _, nullable = _unwrap_optional(tp)
    return pa.field(name, arrow_type(tp), nullable=nullable)


@lru_cache(maxsize=None)
def arrow_schema(record_type: type) -> pa.Schema:
    """The pyarrow schema of a record type (nested arcs and tokens as list<struct>)."""
    return pa.schema([_arrow_field(f.name, t) for f, t in _fields_with_types(record_type)],
                     metadata={b"entailgen.record": record_type.__name__.encode()})


def json_type(tp) -> dict:
    """JSON Schema of a field annotation."""
    inner, nullable = _unwrap_optional(tp)
    if inner in _JSON_SCALARS:
        schema: dict = {"type": _JSON_SCALARS[inner]}
    elif typing.get_origin(inner) is list:
        schema = {"type": "array", "items": json_type(typing.get_args(inner)[0])}
    elif dataclasses.is_dataclass(inner):
        schema = json_schema_of(inner)
    else:
        raise TypeError(f"no JSON type for {inner!r}")
    if nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def json_schema_of(record_type: type) -> dict:
    """JSON Schema (draft 2020-12 object) of a record type; every field is required, Optional ones may be null."""
    fields = _fields_with_types(record_type)
    return {
        "title": record_type.__name__,
        "description": (record_type.__doc__ or "").strip(),
        "type": "object",
        "properties": {f.name: json_type(t) for f, t in fields},
        "required": [f.name for f, _ in fields],
        "additionalProperties": False,
    }


def json_schema(name: str) -> dict:
    """The JSON Schema document for a record type named as in RECORD_TYPES."""
    if name not in RECORD_TYPES:
        raise KeyError(f"unknown record type {name!r}; known: {', '.join(sorted(RECORD_TYPES))}")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **json_schema_of(RECORD_TYPES[name])}


@lru_cache(maxsize=None)
def _row_plan(record_type: type) -> tuple[tuple[str, Any], ...]:
    """Per field: its name and the nested record type of its items, if any (None for scalars)."""
    plan = []
    for f, tp in _fields_with_types(record_type):
        inner, _ = _unwrap_optional(tp)
        if typing.get_origin(inner) is list:
            inner = typing.get_args(inner)[0]
        plan.append((f.name, inner if dataclasses.is_dataclass(inner) else None))
    return tuple(plan)


def to_row(record) -> dict:
    """A record as a plain dict row (nested dataclasses become dicts); much faster than dataclasses.asdict."""
    row = {}
    for name, nested in _row_plan(type(record)):
        value = getattr(record, name)
        if nested is not None and value is not None:
            value = [to_row(v) for v in value] if isinstance(value, list) else to_row(value)
        row[name] = value
    return row


def from_row(record_type: type, row: dict):
    """Rebuild a record from a row dict, nested dataclasses included."""
    kwargs = {}
    for name, convert in _from_plan(record_type):
        if name in row:
            value = row[name]
            kwargs[name] = value if convert is None or value is None else convert(value)
    return record_type(**kwargs)


@lru_cache(maxsize=None)
def _from_plan(record_type: type) -> tuple:
    """Per field: its name and how its row value becomes the record's (None: as it is), planned once per type."""
    return tuple((f.name, _converter(tp)) for f, tp in _fields_with_types(record_type))


@lru_cache(maxsize=None)
def _converter(tp):
    """A function rebuilding a (non-null) row value of annotation tp, or None where the value is taken as it is."""
    inner, _ = _unwrap_optional(tp)
    if typing.get_origin(inner) is list:
        item = _converter(typing.get_args(inner)[0])
        if item is None:
            return list
        return lambda values: [None if v is None else item(v) for v in values]
    if dataclasses.is_dataclass(inner):
        return lambda value: from_row(inner, value)
    return None


def json_text(row: dict) -> str:
    """One JSON Lines row, keys in field order, compact: byte-stable output."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def json_line(record) -> str:
    """A record as one JSON Lines row."""
    return json_text(to_row(record))
