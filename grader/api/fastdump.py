"""A marshmallow schema's ``dump``, compiled once into plain functions.

A graded submission's result has dozens of tests; marshmallow's ``dump`` walks every field of every
test through several layers of calls, which made up about a third of the CPU of a ``GET`` of a
graded submission. :func:`compile_dump` builds, for a schema class, a function returning exactly
what ``Schema().dump(obj)`` returns (same keys in the same order, same values and types), for the
field kinds the response schemas use: ``String``, ``Integer``, ``Float``, ``DateTime`` (ISO format),
``Dict`` (without key or value fields), ``List`` and ``Nested`` of those. A schema with anything
else (another field kind, ``data_key``, ``attribute``, ``load_only``, a ``dump_default``, dotted
names, hooks, ``only``/``exclude``) is dumped by marshmallow itself. The schema classes stay the
API's contract and its OpenAPI document; ``tests/api/test_fastdump.py`` holds the two equal.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Callable

from marshmallow import Schema, fields, missing

Dump = Callable[[Any], Any]
_CACHE: dict[type, Dump] = {}


def _get(obj: Any, key: str) -> Any:
    """``marshmallow.utils.get_value`` for an undotted key."""
    if not hasattr(obj, "__getitem__"):
        return getattr(obj, key, missing)
    try:
        return obj[key]
    except (KeyError, IndexError, TypeError, AttributeError):
        return getattr(obj, key, missing)


def _text(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return str(value)


def _value_dump(field: fields.Field) -> Dump | None:
    """``field._serialize`` as a function of the value, or None when not supported."""
    kind = type(field)
    if kind is fields.String:
        return _text
    if kind in (fields.Integer, fields.Float) and not field.as_string:
        number = field.num_type
        return lambda value: None if value is None else number(value)
    if kind is fields.DateTime and field.format in (None, "iso"):
        return lambda value: None if value is None else dt.datetime.isoformat(value)
    if kind is fields.Dict and field.key_field is None and field.value_field is None:
        mapping = field.mapping_type
        return lambda value: None if value is None else mapping(value)
    if kind is fields.List:
        inner = _value_dump(field.inner)
        if inner is None:
            return None
        return lambda value: None if value is None else [inner(each) for each in value]
    if kind is fields.Nested and not field.many and not field.only and not field.exclude:
        nested = field.nested
        if not (isinstance(nested, type) and issubclass(nested, Schema)):
            return None
        inner = _schema_dump(nested)
        if inner is None:
            return None
        return lambda value: None if value is None else inner(value)
    return None


def _schema_dump(schema_cls: type) -> Dump | None:
    schema = schema_cls()
    if schema._hooks or schema.only or schema.exclude or schema.many:
        return None
    plan = []
    for name, field in schema.dump_fields.items():
        if (field.data_key is not None or field.attribute is not None or "." in name
                or field.dump_default is not missing or not field._CHECK_ATTRIBUTE):
            return None
        serialize = _value_dump(field)
        if serialize is None:
            return None
        plan.append((name, serialize))

    def dump(obj: Any) -> dict:
        out = {}
        for name, serialize in plan:
            value = _get(obj, name)
            if value is not missing:
                out[name] = serialize(value)
        return out

    return dump


def compile_dump(schema_cls: type) -> Dump:
    """A function equal to ``schema_cls().dump`` (compiled on first use, then cached)."""
    if schema_cls not in _CACHE:
        _CACHE[schema_cls] = _schema_dump(schema_cls) or schema_cls().dump
    return _CACHE[schema_cls]


def is_compiled(schema_cls: type) -> bool:
    """Whether :func:`compile_dump` has a fast function for ``schema_cls`` (for tests)."""
    return _schema_dump(schema_cls) is not None
