"""The link between Python methods and bridge methods.

Every public method that calls the bridge is tagged with :func:`bridge_method`, naming its
wire method and, when the Python method returns one member of the result object rather than
the object, that member's key (``unwrap``). The parity test
(``tests/test_parity.py``) walks these tags: every method of ``protocol.json`` must have
exactly one Python method, with the same parameter names, required/optional split and
defaults; the matrix runner uses the same tags to feed vectors through the typed API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

PYTHON_ONLY_PARAMS = frozenset({"self", "timeout", "on_progress"})
"""Parameters of tagged methods that never go on the wire."""

IMPLICIT_PARAMS: dict[str, frozenset[str]] = {"Session": frozenset({"session_id"})}
"""Wire params a class supplies itself (a Session sends its own ``session_id``)."""

TRANSPORT_METHODS = frozenset({"initialize", "shutdown"})
"""Bridge methods the transport calls itself (handshake and clean exit), not the API."""


@dataclass(frozen=True)
class BridgeMethod:
    """What :func:`bridge_method` records: the wire ``name`` and the result key the Python
    method returns (``None`` when it returns the whole result)."""

    name: str
    unwrap: str | None = None


def bridge_method(name: str, *, unwrap: str | None = None) -> Callable[[F], F]:
    """Tag a method as the Python side of bridge method ``name``.

    Input: the wire name (e.g. ``"ledger.digest"``) and ``unwrap``, the result member the
    method returns (e.g. ``"effect_digest"``). Output: a decorator that returns the function
    unchanged except for the ``__turngate_bridge__`` attribute.
    """

    def tag(function: F) -> F:
        function.__turngate_bridge__ = BridgeMethod(name, unwrap)  # type: ignore[attr-defined]
        return function

    return tag


def tagged_methods(cls: type) -> Iterator[tuple[str, Callable[..., Any], BridgeMethod]]:
    """Yield ``(attribute name, function, tag)`` for every tagged method of ``cls``."""
    for attribute in sorted(dir(cls)):
        function = getattr(cls, attribute, None)
        tag = getattr(function, "__turngate_bridge__", None)
        if isinstance(tag, BridgeMethod):
            yield attribute, function, tag  # type: ignore[misc]
