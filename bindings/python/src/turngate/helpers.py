"""Module-level stateless helpers: ``turngate.effect_digest(records)`` and friends.

They call a shared default :class:`~turngate.client.Client`, started on first use (one
bridge process for the whole program, or the in-process bridge under Pyodide) and closed at
interpreter exit or by :func:`close_default_client`. Each helper has the signature,
result and errors of the :class:`Client` method of the same name.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .client import Client
from .types import (
    CompletionWaiver,
    ExternalObservation,
    GateOutcome,
    LedgerState,
    MutationRecord,
    VerificationCheck,
    VerificationReport,
    VerificationStatus,
    VerificationSummary,
    WaiverValidation,
)

_lock = threading.Lock()
_default: Client | None = None


def default_client() -> Client:
    """The shared client, started on first use (thread-safe). Raises what ``Client()``
    raises when the bridge cannot be started."""
    global _default
    with _lock:
        if _default is None or _default.closed:
            _default = Client()
        return _default


def close_default_client() -> None:
    """Close the shared client if it was started (also runs at interpreter exit)."""
    global _default
    with _lock:
        client, _default = _default, None
    if client is not None:
        client.close()


atexit.register(close_default_client)


def effect_digest(records: Sequence[MutationRecord | Mapping[str, Any]]) -> str:
    """Effect digest of mutation records; see :meth:`Client.effect_digest`."""
    return default_client().effect_digest(records)


def content_digest(metadata: Mapping[str, Any]) -> str:
    """Content digest of tool metadata; see :meth:`Client.content_digest`."""
    return default_client().content_digest(metadata)


def decide_completion(
    ledger: LedgerState | Mapping[str, Any],
    reports: Sequence[VerificationReport | Mapping[str, Any]] = (),
    waivers: Sequence[CompletionWaiver | Mapping[str, Any]] = (),
    allow_continuation: bool = False,
    observations: Sequence[ExternalObservation | Mapping[str, Any]] = (),
) -> GateOutcome:
    """The completion gate; see :meth:`Client.decide_completion`."""
    return default_client().decide_completion(ledger, reports, waivers, allow_continuation, observations)


def derive_report_status(
    checks: Sequence[VerificationCheck | Mapping[str, Any]], residual_risks: Sequence[str] = ()
) -> VerificationStatus:
    """Derived report status; see :meth:`Client.derive_report_status`."""
    return default_client().derive_report_status(checks, residual_risks)


def summarize_reports(reports: Sequence[VerificationReport | Mapping[str, Any]]) -> VerificationSummary:
    """Verification summary; see :meth:`Client.summarize_reports`."""
    return default_client().summarize_reports(reports)


def format_verification_summary(summary: VerificationSummary | Mapping[str, Any]) -> str:
    """One-line summary text; see :meth:`Client.format_verification_summary`."""
    return default_client().format_verification_summary(summary)


def validate_waiver(waiver: Any) -> WaiverValidation:
    """Waiver verdict; see :meth:`Client.validate_waiver`."""
    return default_client().validate_waiver(waiver)
