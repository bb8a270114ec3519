"""Typed errors of the turngate Python binding.

Hierarchy (every error is a :class:`TurngateError`)::

    TurngateError
    ├── BridgeError      the bridge process could not start, died or closed its pipe
    ├── ProtocolError    the conversation broke JSON-RPC / turngate.bridge.v1
    ├── InvalidParams    the bridge (or the client) rejected a parameter; ``.path`` names it
    ├── RemoteError      the bridge answered a well-formed call with another stable error code
    ├── Timeout          no answer within the per-call timeout
    └── NotSupported     the transport cannot serve this method (Pyodide: sessions)

Wire error codes (``error.data.code`` of a JSON-RPC error, docs/design.md §5) map as follows:
``invalid_params`` → :class:`InvalidParams`; ``parse_error``, ``invalid_request``,
``method_not_found`` and ``too_large`` → :class:`ProtocolError`; ``not_supported`` →
:class:`NotSupported`; every other code (``session_not_found``, ``internal_error``, …) →
:class:`RemoteError`.
"""

from __future__ import annotations

from typing import Any

PROTOCOL_CODES = frozenset({"parse_error", "invalid_request", "method_not_found", "too_large"})


class TurngateError(Exception):
    """Base class of every error this package raises.

    Attributes:
        code: the stable wire code (``data.code``) when the error came from the bridge, or the
            code this client assigned (e.g. ``"timeout"``, ``"bridge_exited"``); never empty.
        message: the human-readable message (also ``str(error)``).
        path: the dotted wire path of the offending field when the bridge named one (e.g.
            ``"records.0.path"``; ``""`` = the params object itself), else ``None``.
    """

    code: str

    def __init__(self, message: str, *, code: str = "turngate_error", path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.path = path


class BridgeError(TurngateError):
    """The bridge process could not be started, exited, or closed its stdout.

    Attributes:
        stderr_tail: the last bytes (at most 8 KiB, decoded as UTF-8 with replacement) the
            bridge wrote to stderr, "" when it wrote nothing.
        returncode: the process exit status when known (negative = killed by that signal),
            else ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        stderr_tail: str = "",
        returncode: int | None = None,
        code: str = "bridge_error",
    ) -> None:
        detail = message
        if stderr_tail.strip():
            detail = f"{message}\n--- bridge stderr (tail) ---\n{stderr_tail.rstrip()}"
        super().__init__(detail, code=code)
        self.stderr_tail = stderr_tail
        self.returncode = returncode


class ProtocolError(TurngateError):
    """A message broke the protocol: a malformed line, a response to an unknown request id,
    an ``initialize`` answer for another protocol, or a bridge error with one of the codes
    ``parse_error``, ``invalid_request``, ``method_not_found``, ``too_large``."""


class InvalidParams(TurngateError):
    """A parameter was rejected.

    Attributes:
        code: ``"invalid_params"``.
        path: the dotted wire path of the offending field, e.g. ``"reports.0.checks.1.status"``
            (array indexes as numbers); ``""`` when the params object itself is at fault;
            ``None`` when no field is named.
        data: the JSON-RPC error ``data`` object as received (``{}`` for client-side errors).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        code: str = "invalid_params",
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code, path=path)
        self.data: dict[str, Any] = dict(data or {})


class RemoteError(TurngateError):
    """The bridge answered with a stable error code that is neither a protocol error nor
    ``invalid_params`` (e.g. ``session_not_found``, ``internal_error``).

    Attributes:
        code: the wire code, path: the dotted field path when the bridge sent one (else
        ``None``),
        data: the JSON-RPC error ``data`` object as received.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        path: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code, path=path)
        self.data: dict[str, Any] = dict(data or {})


class Timeout(TurngateError):
    """No response arrived within the per-call timeout.

    Attributes:
        method: the bridge method called, timeout: the limit in seconds.
    """

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"turngate bridge call {method!r} timed out after {timeout:g} s", code="timeout")
        self.method = method
        self.timeout = timeout


class NotSupported(TurngateError):
    """The active transport cannot serve this method. Under Pyodide there are no
    subprocesses and no workspace I/O, so only the stateless methods are available."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="not_supported")


def error_from_wire(method: str, error: Any) -> TurngateError:
    """Build the typed error for a JSON-RPC ``error`` member.

    Input: ``method`` (the called method, for the message) and ``error``, the response's
    ``error`` value ``{code: int, message: str, data?: {code, path?, message}}``.
    Output: an :class:`InvalidParams`, :class:`ProtocolError`, :class:`NotSupported` or
    :class:`RemoteError` chosen by ``data.code`` (see the module docstring). A malformed
    ``error`` member yields a :class:`ProtocolError`.
    """
    if not isinstance(error, dict):
        return ProtocolError(f"{method}: malformed JSON-RPC error member: {error!r}")
    data = error.get("data")
    data = data if isinstance(data, dict) else {}
    code = data.get("code")
    message = data.get("message") or error.get("message") or "bridge error"
    if not isinstance(code, str) or not code:
        return ProtocolError(f"{method}: bridge error without a stable data.code: {message}", code="unknown")
    raw_path = data.get("path")
    path = raw_path if isinstance(raw_path, str) else None
    text = f"{method}: {message}"
    if code == "invalid_params":
        return InvalidParams(text, path=path, data=data)
    if code in PROTOCOL_CODES:
        return ProtocolError(text, code=code, path=path)
    if code == "not_supported":
        return NotSupported(text)
    return RemoteError(text, code=code, path=path, data=data)
