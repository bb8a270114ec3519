"""JSON-RPC 2.0 framing shared by both transports (docs/design.md §5): encode a request line,
and turn a response object into its result or typed error."""

from __future__ import annotations

import json
import json.encoder
import json.scanner
from collections.abc import Mapping
from typing import Any

from ._wire import TOO_DEEP_MESSAGE
from .errors import InvalidParams, ProtocolError, TurngateError, error_from_wire

PROTOCOL_ID = "turngate.bridge.v1"
"""The protocol ``initialize`` must report; compared exactly."""

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""Largest message either side may send, in bytes (32 MiB), newline excluded."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""Compact UTF-8 JSON, NaN/Infinity refused; built once (json.dumps builds one per call)."""

_C_MAKE_ENCODER = json.encoder.c_make_encoder
"""The C encoder factory behind :class:`json.JSONEncoder` (``None`` without ``_json``)."""

_FAST_ENCODE = (
    None
    if _C_MAKE_ENCODER is None
    else _C_MAKE_ENCODER(None, _ENCODER.default, json.encoder.c_encode_basestring, None, ":", ",", False, False, False)
)
"""The C encoder with no cycle-marker table (``None`` without ``_json``): it holds no
per-call state, so one serves every call and thread (see :func:`_encode_json`)."""

_METHOD_HEADS: dict[str, str] = {}
"""Per method name, the start of its request line up to ``"params":`` (built once)."""

_SCAN = json.scanner.make_scanner(json.JSONDecoder())
"""The decoder's value scanner (C): parses one JSON value at an index, ``(value, end)``."""


def request(request_id: int | None, method: str, params: Any) -> dict[str, Any]:
    """A JSON-RPC 2.0 request object (a notification when ``request_id`` is ``None``).
    ``params`` ``None`` is sent as ``{}``: this protocol passes params by name only."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": {} if params is None else params}
    if request_id is not None:
        message["id"] = request_id
    return message


def _encode_json(value: Any) -> str:
    """Compact JSON text of ``value``, as ``_ENCODER.encode`` makes it; with the C encoder
    it is called directly, skipping the Python layers of :meth:`json.JSONEncoder.encode`.

    The fast encoder (:data:`_FAST_ENCODE`, built once) keeps no cycle-marker table; a value
    that makes it recurse too deeply (a cycle, or nesting past the recursion limit) is
    encoded again with a fresh table, as ``json`` itself does, so the same error is raised
    (``ValueError: Circular reference detected`` for a cycle, ``RecursionError`` else)."""
    if _FAST_ENCODE is None:
        return _ENCODER.encode(value)
    try:
        return "".join(_FAST_ENCODE(value, 0))
    except RecursionError:
        pass
    encode = _C_MAKE_ENCODER(
        {}, _ENCODER.default, json.encoder.c_encode_basestring, None, ":", ",", False, False, False
    )
    return "".join(encode(value, 0))


def encode_request(request_id: int, method: str, params: Any) -> bytes:
    """The request line of :func:`request` ``(request_id, method, params)`` as
    :func:`encode_message` writes it (same bytes), built without the envelope dict.

    Input: the id, the wire method name, the params (``None`` sends ``{}``). Output: the
    bytes to write, ``\n`` included. Raises what :func:`encode_message` raises.
    """
    head = _METHOD_HEADS.get(method)
    if head is None:
        head = '{"jsonrpc":"2.0","method":' + _ENCODER.encode(method) + ',"params":'
        if len(_METHOD_HEADS) < 1024:
            _METHOD_HEADS[method] = head
    try:
        body = _encode_json({} if params is None else params)
        data = f'{head}{body},"id":{int(request_id)}}}\n'.encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidParams(f"params are not JSON-serialisable: {exc}", path="") from None
    except RecursionError:
        raise InvalidParams(TOO_DEEP_MESSAGE, path="") from None
    if len(data) > MAX_MESSAGE_BYTES + 1:
        raise ProtocolError(
            f"message of {len(data) - 1} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit",
            code="too_large",
        )
    return data


def encode_message(message: Mapping[str, Any]) -> bytes:
    """Serialise one JSON-RPC message as a UTF-8 line (compact JSON, ``\\n`` appended).

    Input: a JSON-compatible mapping. Output: the bytes to write.
    Raises :class:`InvalidParams` when the value is not JSON (NaN, a lone surrogate, an
    object that is not a dict/list/str/int/float/bool/None, a cycle, nesting deeper than
    Python's recursion limit) and :class:`ProtocolError`
    (code ``too_large``) when it exceeds :data:`MAX_MESSAGE_BYTES`.
    """
    try:
        data = (_ENCODER.encode(message) + "\n").encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidParams(f"params are not JSON-serialisable: {exc}", path="") from None
    except RecursionError:
        raise InvalidParams(TOO_DEEP_MESSAGE, path="") from None
    if len(data) > MAX_MESSAGE_BYTES + 1:
        raise ProtocolError(
            f"message of {len(data) - 1} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit",
            code="too_large",
        )
    return data


def decode_message(text: str) -> Any:
    """Parse one received line (newline removed) as JSON; same result and errors as
    :func:`json.loads`.

    Input: the line as text. Output: the parsed value. Raises :class:`ValueError`
    (:class:`json.JSONDecodeError`) when the line is not exactly one JSON value. A line that
    is one compact value (what the bridge sends) is scanned directly, without
    :func:`json.loads`' two whitespace scans; anything else goes through :func:`json.loads`.
    """
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def response_outcome(method: str, message: Mapping[str, Any]) -> tuple[Any, TurngateError | None]:
    """Split a response object into ``(result, None)`` or ``(None, error)``.

    Input: the called ``method`` (for error messages) and the parsed response.
    Output: the ``result`` member, or the typed error for its ``error`` member
    (:func:`turngate.errors.error_from_wire`); a response with neither is a
    :class:`ProtocolError`.
    """
    if "error" in message:
        return None, error_from_wire(method, message["error"])
    if "result" in message:
        return message["result"], None
    return None, ProtocolError(f"{method}: response has neither result nor error")
