"""Module-level helpers for the pure verification facts: ``turngate.diagnostic_delta(...)``
and friends. Each calls the shared default client (see :mod:`turngate.helpers`) and has the
signature, result and errors of the :class:`~turngate.facts.FactsMethods` method of the same
name. ``file_hash_snapshot`` reads files and is a :class:`~turngate.Client` method only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .facts import (
    DiagnosticClassification,
    DiagnosticDelta,
    DiagnosticFormat,
    GateInput,
    ParsedDiagnostics,
    SnapshotStaleness,
)
from .helpers import default_client


def snapshot_staleness(
    bound_snapshot: Mapping[str, Any] | None, current_hashes: Mapping[str, Any] | None
) -> SnapshotStaleness:
    """Staleness of a bound snapshot; see :meth:`FactsMethods.snapshot_staleness`."""
    return default_client().snapshot_staleness(bound_snapshot, current_hashes)


def diagnostic_classify(
    envelope: Mapping[str, Any] | None, current_hashes: Mapping[str, Any] | None = None
) -> DiagnosticClassification:
    """Classification of a diagnostic envelope; see :meth:`FactsMethods.diagnostic_classify`."""
    return default_client().diagnostic_classify(envelope, current_hashes)


def diagnostic_delta(previous: Any, current: Any, options: Mapping[str, Any] | None = None) -> DiagnosticDelta:
    """Diagnostic delta; see :meth:`FactsMethods.diagnostic_delta`."""
    return default_client().diagnostic_delta(previous, current, options)


def gate_input(
    previous: Any,
    current: Any,
    current_hashes: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
) -> GateInput:
    """Gate input; see :meth:`FactsMethods.gate_input`."""
    return default_client().gate_input(previous, current, current_hashes, options)


def parse_diagnostics(format: DiagnosticFormat, text: str) -> ParsedDiagnostics:
    """Parsed tool output; see :meth:`FactsMethods.parse_diagnostics`."""
    return default_client().parse_diagnostics(format, text)


__all__ = ["diagnostic_classify", "diagnostic_delta", "gate_input", "parse_diagnostics", "snapshot_staleness"]
