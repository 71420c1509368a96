"""Field specs: one declaration per field gives its check, its wire form and its JSON Schema.

Declaring a field once keeps the decoder, the encoder and ``protocol/schema`` from drifting
apart.  A spec's ``check`` takes a value as msgpack decoded it (or as a caller built it) and returns
the Python value a message holds (arrays become tuples); it raises ``bad_message`` naming the path.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .errors import RemoteProtocolError

__all__ = [
    "Spec", "Int", "Float", "Bool", "Text", "OneOf", "Blob", "Nullable", "ListOf", "AnyMap",
    "RecordOf",
    "wire_field", "decode_fields", "fields_to_wire", "fields_schema", "bad",
]


def bad(path: str, expected: str, value: Any) -> RemoteProtocolError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return RemoteProtocolError("bad_message", f"{path}: expected {expected}, got {shown}")


class Spec:
    """How one field is checked, put on the wire and described in JSON Schema."""

    def check(self, value: Any, path: str) -> Any:
        raise NotImplementedError

    def to_wire(self, value: Any) -> Any:
        return value

    def schema(self) -> dict[str, Any]:
        raise NotImplementedError


class Int(Spec):
    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value, path):
        if type(value) is not int or not self.lo <= value <= self.hi:
            raise bad(path, f"an integer {self.lo}..{self.hi}", value)
        return value

    def schema(self):
        return {"type": "integer", "minimum": self.lo, "maximum": self.hi}


class Float(Spec):
    """A number ``lo``..``hi`` (msgpack float or int), held and sent as a float."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not self.lo <= value <= self.hi:
            raise bad(path, f"a number {self.lo:g}..{self.hi:g}", value)
        return float(value)

    def to_wire(self, value):
        return float(value)

    def schema(self):
        return {"type": "number", "minimum": self.lo, "maximum": self.hi}


class Bool(Spec):
    def check(self, value, path):
        if not isinstance(value, bool):
            raise bad(path, "true or false", value)
        return value

    def schema(self):
        return {"type": "boolean"}


class Text(Spec):
    def __init__(self, max_len: int, min_len: int = 0) -> None:
        self.max_len, self.min_len = max_len, min_len

    def check(self, value, path):
        if not isinstance(value, str) or not self.min_len <= len(value) <= self.max_len:
            raise bad(path, f"a string of {self.min_len}..{self.max_len} characters", value)
        return value

    def schema(self):
        return {"type": "string", "minLength": self.min_len, "maxLength": self.max_len}


class OneOf(Spec):
    """One of a few fixed strings."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices

    def check(self, value, path):
        if not isinstance(value, str) or value not in self.choices:
            raise bad(path, "one of " + ", ".join(map(repr, self.choices)), value)
        return value

    def schema(self):
        return {"type": "string", "enum": list(self.choices)}


class Bytes(Spec):
    """Between ``min_len`` and ``max_len`` bytes (msgpack bin; never a str)."""

    def __init__(self, min_len: int, max_len: int) -> None:
        self.min_len, self.max_len = min_len, max_len

    def _size(self) -> tuple[str, str]:
        """The size as said to a person, and as a hex pattern's count of digits."""
        if self.min_len == self.max_len:
            return f"{self.min_len}", f"{2 * self.min_len}"
        return f"{self.min_len}..{self.max_len}", f"{2 * self.min_len},{2 * self.max_len}"

    def check(self, value, path):
        if not isinstance(value, bytes) or not self.min_len <= len(value) <= self.max_len:
            raise bad(path, f"{self._size()[0]} bytes (msgpack bin)", value)
        return value

    def schema(self):
        said, digits = self._size()
        return {
            "$comment": f"msgpack bin of {said} bytes, written in JSON as {{\"$bin\": hex}}",
            "type": "object", "required": ["$bin"], "additionalProperties": False,
            "properties": {"$bin": {"type": "string", "pattern": f"^[0-9a-f]{{{digits}}}$"}},
        }


class Blob(Bytes):
    """Exactly ``size`` bytes (msgpack bin; never a str)."""

    def __init__(self, size: int) -> None:
        super().__init__(size, size)


class Nullable(Spec):
    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def check(self, value, path):
        return None if value is None else self.inner.check(value, path)

    def to_wire(self, value):
        return None if value is None else self.inner.to_wire(value)

    def schema(self):
        return {"anyOf": [self.inner.schema(), {"type": "null"}]}


class ListOf(Spec):
    """An array of at most ``max_items`` items; held as a tuple."""

    def __init__(self, item: Spec, max_items: int) -> None:
        self.item, self.max_items = item, max_items

    def check(self, value, path):
        if not isinstance(value, (list, tuple)) or len(value) > self.max_items:
            raise bad(path, f"an array of at most {self.max_items} items", value)
        return tuple(self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value))

    def to_wire(self, value):
        return [self.item.to_wire(v) for v in value]

    def schema(self):
        return {"type": "array", "maxItems": self.max_items, "items": self.item.schema()}


class AnyMap(Spec):
    """A map whose contents another layer defines (the frame decoder has bounded its shape)."""

    def check(self, value, path):
        if not isinstance(value, dict):
            raise bad(path, "a map", value)
        return value

    def schema(self):
        return {"type": "object"}


class RecordOf(Spec):
    """A map decoded into the dataclass ``cls`` whose fields are declared with ``wire_field``."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def check(self, value, path):
        if not isinstance(value, dict):
            raise bad(path, "a map", value)
        return decode_fields(self.cls, value, path)

    def to_wire(self, value):
        return fields_to_wire(value)

    def schema(self):
        return fields_schema(self.cls)


def wire_field(spec: Spec, omit_default: bool = False, **kwargs: Any) -> Any:
    """Declare a dataclass field together with its wire spec.  ``omit_default``: the field is
    left off the wire while it holds its default, so that a field added to a signed message
    leaves the bytes of every message that does not use it as they were."""
    return dataclasses.field(metadata={"wire": spec, "omit_default": omit_default}, **kwargs)


def _has_default(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def decode_fields(cls: type, value: dict[str, Any], path: str) -> Any:
    """Build ``cls`` from a map, checking every declared field and ignoring unknown ones."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("wire")
        if spec is None:
            continue
        if f.name in value:
            kwargs[f.name] = spec.check(value[f.name], f"{path}.{f.name}")
        elif not _has_default(f):
            raise RemoteProtocolError("bad_message", f"{path}.{f.name}: missing")
    return cls(**kwargs)


def fields_to_wire(obj: Any) -> dict[str, Any]:
    return {f.name: f.metadata["wire"].to_wire(getattr(obj, f.name))
            for f in dataclasses.fields(obj) if "wire" in f.metadata
            and not (f.metadata.get("omit_default") and getattr(obj, f.name) == f.default)}


def fields_schema(cls: type) -> dict[str, Any]:
    declared = [f for f in dataclasses.fields(cls) if "wire" in f.metadata]
    return {
        "type": "object",
        "required": [f.name for f in declared if not _has_default(f)],
        "properties": {f.name: f.metadata["wire"].schema() for f in declared},
    }
