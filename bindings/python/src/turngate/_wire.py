"""Conversion between the binding's dataclasses and wire JSON (snake_case keys, docs/design.md §6).

Every protocol type in :mod:`turngate.types` is a keyword-only dataclass deriving from
:class:`WireModel`. Field names are the wire keys. A field whose value is ``None`` is
optional on the wire and is omitted when serialising; every other field is sent.

Reading is strict about types (a wrong type is a :class:`ProtocolError` naming the field:
the bridge validated its result, so a mismatch means the two sides drifted) and lenient
about *unknown* keys: they are kept on the instance (:meth:`WireModel.wire_extra`) and sent
back by :meth:`WireModel.to_wire`, so a round trip through Python never drops a field the
bridge added (the A3S Go SDK lost ``effect_digest`` exactly that way; reference §6).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar, Union

from .errors import InvalidParams, ProtocolError

M = TypeVar("M", bound="WireModel")

_EXTRA = "_wire_extra"


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


class WireModel:
    """Mixin for protocol dataclasses: ``from_wire`` / ``to_wire`` / ``wire_extra``."""

    __wire_hints__: ClassVar[dict[str, Any] | None] = None

    @classmethod
    def _hints(cls) -> dict[str, Any]:
        hints = cls.__dict__.get("__wire_hints__")
        if hints is None:
            hints = typing.get_type_hints(cls)
            cls.__wire_hints__ = hints
        return hints

    @classmethod
    def from_wire(cls: type[M], data: Any, path: str = "") -> M:
        """Build an instance from wire JSON.

        Input: ``data``, a dict with snake_case keys as the bridge sends it; ``path``, the
        dotted location of ``data`` for error messages. Output: the dataclass instance.
        Raises :class:`ProtocolError` (code ``bad_result``) naming the dotted path of a
        missing required field or a value of the wrong type.
        """
        if not isinstance(data, Mapping):
            raise ProtocolError(
                f"{path or cls.__name__}: expected an object, got {type(data).__name__}",
                code="bad_result",
            )
        hints = cls._hints()
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]
            if field.name in data:
                values[field.name] = _read(hints[field.name], data[field.name], _join(path, field.name))
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise ProtocolError(f"{_join(path, field.name)}: required field is missing", code="bad_result")
        instance = cls(**values)
        names = {field.name for field in dataclasses.fields(cls)}  # type: ignore[arg-type]
        extra = {key: value for key, value in data.items() if key not in names}
        if extra:
            object.__setattr__(instance, _EXTRA, extra)
        return instance

    def to_wire(self) -> dict[str, Any]:
        """The wire JSON of this instance: a new dict, optional ``None`` fields omitted, nested models
        and sequences converted, unknown keys read by :meth:`from_wire` re-emitted."""
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if value is not None or field.default is dataclasses.MISSING:
                # A required field that is None is a required-nullable one: sent as null.
                out[field.name] = to_wire(value)
        for key, value in self.wire_extra().items():
            out.setdefault(key, to_wire(value))
        return out

    def wire_extra(self) -> dict[str, Any]:
        """Keys the bridge sent that this dataclass has no field for (``{}`` normally);
        e.g. the data an ``incomplete`` gate outcome carries besides reason and message."""
        return dict(getattr(self, _EXTRA, {}))


_SCALARS = frozenset({str, int, float, bool, type(None)})


TOO_DEEP_MESSAGE = "params are not JSON-serialisable: they contain a cycle or nest too deeply"
"""The :class:`InvalidParams` message for a cyclic or too deeply nested value."""


def to_wire(value: Any) -> Any:
    """Convert a value for the wire: a :class:`WireModel` becomes its dict, a mapping a dict
    with converted values, a list/tuple a list; str, int, float, bool and None pass through,
    and so does a plain dict whose values are all such scalars (the same object, not a copy).
    Anything else is returned unchanged (the JSON encoder then rejects it with
    :class:`InvalidParams`). Raises :class:`InvalidParams` (path ``""``,
    :data:`TOO_DEEP_MESSAGE`) for a cyclic value or one nested deeper than Python's
    recursion limit, instead of letting ``RecursionError`` escape."""
    try:
        return _convert(value)
    except RecursionError:
        raise InvalidParams(TOO_DEEP_MESSAGE, path="") from None


def _convert(value: Any) -> Any:
    """:func:`to_wire` without the ``RecursionError`` translation (recursive)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    # The common cases without a call per member and without the (slow) abstract-class
    # checks below: a plain dict or list whose members are all scalars is already wire JSON
    # and is returned as it is (nothing in it needs converting).
    if kind is dict:
        for item in value.values():
            if type(item) not in _SCALARS:
                return {key: item if type(item) in _SCALARS else _convert(item) for key, item in value.items()}
        return value
    if kind is list:
        return [item if type(item) in _SCALARS else _convert(item) for item in value]
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, Mapping):
        return {key: _convert(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_convert(item) for item in value]
    return value


def wire_list(value: Any, name: str) -> list[Any]:
    """Convert a sequence argument for the wire (a new list of converted items), rejecting
    a str/bytes/mapping passed where a sequence is expected. Raises :class:`InvalidParams`
    with ``path=name``."""
    kind = type(value)
    if kind is not list and kind is not tuple:
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
            raise InvalidParams(f"{name}: expected a list, got {type(value).__name__}", path=name)
    scalars = _SCALARS
    out: list[Any] = []
    for item in value:
        # A plain dict of scalars (the usual row) is already wire JSON: kept as it is, as
        # to_wire would keep it, without a call per item.
        if type(item) is dict:
            for member in item.values():
                if type(member) not in scalars:
                    item = to_wire(item)
                    break
        elif type(item) not in scalars:
            item = to_wire(item)
        out.append(item)
    return out


def _read(hint: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors: list[ProtocolError] = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _read(option, value, path)
            except ProtocolError as exc:
                errors.append(exc)
        raise errors[0] if errors else ProtocolError(f"{path}: unexpected null", code="bad_result")
    if origin is Literal:
        if any(value == option and type(value) is type(option) for option in typing.get_args(hint)):
            return value
        raise ProtocolError(
            f"{path}: expected one of {list(typing.get_args(hint))}, got {value!r}",
            code="bad_result",
        )
    if origin is list:
        if not isinstance(value, list):
            raise ProtocolError(f"{path}: expected a list, got {type(value).__name__}", code="bad_result")
        (item,) = typing.get_args(hint) or (Any,)
        return [_read(item, element, _join(path, index)) for index, element in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(f"{path}: expected an object, got {type(value).__name__}", code="bad_result")
        return dict(value)
    if isinstance(hint, type) and issubclass(hint, WireModel):
        return hint.from_wire(value, path)
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
    elif hint is str:
        if isinstance(value, str):
            return value
    else:
        raise TypeError(f"turngate._wire cannot read type {hint!r} at {path}")
    raise ProtocolError(f"{path}: expected {hint.__name__}, got {type(value).__name__}", code="bad_result")
