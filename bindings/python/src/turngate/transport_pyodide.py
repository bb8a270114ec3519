"""In-process transport for Pyodide (``sys.platform == "emscripten"``), where there are no
subprocesses: requests go through the JS FFI to ``@turngate/bridge/pure``.

The host registers the bridge's pure entry point as a JS module before using turngate::

    import * as bridgePure from "@turngate/bridge/pure";
    pyodide.registerJsModule("turngate_bridge", bridgePure);

Each call builds the same JSON-RPC request line as the stdio transport, hands it to
``handleStatelessLine(line)`` (string in, string out) and parses the response line with
the same code, so results and error codes are identical byte for byte.

Supported: ``initialize``, ``shutdown`` and every stateless method (``ledger.*``,
``gate.decide``, ``report.derive_status``, ``verification.*``, ``waiver.validate``, the pure
``facts.*``). Not supported: ``session.*`` and ``facts.file_hash_snapshot`` (sessions
observe a workspace and run commands, snapshots read files; Pyodide has no processes and no
host file system) — they raise :class:`~turngate.errors.NotSupported`.
Calls are synchronous and single-threaded; ``timeout`` is accepted and ignored.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from ._rpc import encode_message, request, response_outcome
from .errors import BridgeError, NotSupported, ProtocolError

SERVER_ONLY_METHODS = frozenset(
    {
        "facts.file_hash_snapshot",
        "facts.affected_targets",
        "facts.code_index_changes_since",
        "facts.code_index_file_hash_snapshot",
    }
)
"""Stateless-looking methods that read the host file system: served by the stdio bridge only."""

JS_MODULE = "turngate_bridge"
"""Name under which the host registers ``@turngate/bridge/pure`` (``registerJsModule``)."""


def load_js_module() -> Any:
    """Import the JS module the host registered as :data:`JS_MODULE`.

    Raises :class:`BridgeError` (code ``bridge_not_found``) with the registration snippet
    when it is missing.
    """
    try:
        import turngate_bridge  # type: ignore[import-not-found]
    except ImportError:
        raise BridgeError(
            "turngate under Pyodide needs the bridge's pure entry point: in JS, "
            'pyodide.registerJsModule("turngate_bridge", await import("@turngate/bridge/pure"))',
            code="bridge_not_found",
        ) from None
    return turngate_bridge


class PyodideTransport:
    """Calls the stateless bridge methods in-process.

    Args:
        module: an object with ``handleStatelessLine(line: str) -> str | None`` (the JS
            module ``@turngate/bridge/pure``); default: :func:`load_js_module`.
    """

    def __init__(self, module: Any = None) -> None:
        self._module = module if module is not None else load_js_module()
        self._ids = itertools.count(1)
        self._closed = False

    def call(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,  # noqa: ARG002 - in-process calls cannot time out
        on_progress: Any = None,  # noqa: ARG002 - stateless methods send no progress
    ) -> Any:
        """Send one request in-process and return its ``result``.

        Input and errors as :meth:`turngate.transport_subprocess.SubprocessTransport.call`,
        plus :class:`NotSupported` for ``session.*`` and :data:`SERVER_ONLY_METHODS`. ``timeout`` is ignored.
        """
        if method.startswith("session."):
            raise NotSupported(
                f"{method}: sessions are not available under Pyodide (no subprocesses, no "
                "workspace I/O); use the stateless helpers, or CPython with the stdio bridge"
            )
        if method in SERVER_ONLY_METHODS:
            raise NotSupported(
                f"{method}: reads workspace files, which Pyodide cannot; use CPython with the stdio bridge"
            )
        if self._closed and method != "shutdown":
            raise BridgeError("the turngate client is closed", code="closed")
        line = encode_message(request(next(self._ids), method, params))[:-1].decode("utf-8")
        try:
            reply = self._module.handleStatelessLine(line)
        except Exception as exc:  # noqa: BLE001 - a JsException from the FFI
            raise ProtocolError(f"{method}: the in-process bridge threw: {exc}", code="internal_error") from None
        if reply is None:
            raise ProtocolError(f"{method}: the in-process bridge sent no response")
        try:
            message = json.loads(str(reply))
        except ValueError:
            raise ProtocolError(f"{method}: the in-process bridge sent a line that is not JSON") from None
        if not isinstance(message, dict):
            raise ProtocolError(f"{method}: the in-process bridge sent {message!r:.200}")
        result, error = response_outcome(method, message)
        if error is not None:
            raise error
        return result

    def close(self, **_: Any) -> int | None:
        """Mark the transport closed (nothing to stop in-process). Returns ``None``."""
        self._closed = True
        return None
