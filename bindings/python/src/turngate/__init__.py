"""turngate for Python: the completion gate that ends a coding agent's turn only when a
passing verification report is bound to the exact bytes the turn changed (the effect
digest), or the host waives that digest.

* :class:`Client` — a connection to the turngate bridge (``turngate bridge --stdio`` under
  CPython; the in-process pure bridge under Pyodide). Thread-safe, a context manager.
* :class:`Session` — one host session: observe tools and the workspace, record or run
  verification, decide, prove.
* Stateless helpers on a shared default client: :func:`effect_digest`,
  :func:`content_digest`, :func:`decide_completion`, :func:`derive_report_status`,
  :func:`summarize_reports`, :func:`format_verification_summary`, :func:`validate_waiver`.
* Verification facts (:mod:`turngate.facts`): :func:`diagnostic_delta`, :func:`gate_input`,
  :func:`parse_diagnostics`, :func:`snapshot_staleness`, :func:`diagnostic_classify`, and
  :meth:`Client.file_hash_snapshot`.
* Dataclasses for every protocol type (:mod:`turngate.types`) and typed errors
  (:mod:`turngate.errors`).
"""

from ._version import __version__
from .client import DEFAULT_TIMEOUT_S, Client, running_under_pyodide
from .discovery import bridge_command
from .errors import (
    BridgeError,
    InvalidParams,
    NotSupported,
    ProtocolError,
    RemoteError,
    Timeout,
    TurngateError,
)
from .facts import (
    DeltaSide,
    DiagnosticClassification,
    DiagnosticDelta,
    DiagnosticNormalization,
    FileHashSnapshot,
    FileHashSnapshotEntry,
    GateInput,
    GateSide,
    ParsedDiagnostic,
    ParsedDiagnostics,
    RungComparison,
    SnapshotStaleness,
    UnparsedInput,
)
from .facts_profiles import (
    CheckObservation,
    HudModel,
    LadderEntry,
    LadderPlan,
    LadderSkip,
    ProfileMatch,
    RecordedCheck,
)
from .facts_helpers import (
    diagnostic_classify,
    diagnostic_delta,
    gate_input,
    parse_diagnostics,
    snapshot_staleness,
)
from .helpers import (
    close_default_client,
    content_digest,
    decide_completion,
    default_client,
    derive_report_status,
    effect_digest,
    format_verification_summary,
    summarize_reports,
    validate_waiver,
)
from .session import Session
from .types import (
    ChildSettlement,
    CommandRun,
    CompletionTerminal,
    CompletionWaiver,
    ExternalObservation,
    GateOutcome,
    LedgerState,
    MutationRecord,
    OpenWorkspaceChild,
    ProgressEvent,
    ReportBinding,
    ToolObservation,
    TurnProof,
    VerificationCheck,
    VerificationCommand,
    VerificationPreset,
    VerificationReport,
    VerificationSummary,
    VerifyResult,
    WaiverValidation,
    WorkspaceChange,
    WorkspaceObservation,
)

__all__ = [
    "CheckObservation",
    "HudModel",
    "LadderEntry",
    "LadderPlan",
    "LadderSkip",
    "ProfileMatch",
    "RecordedCheck",
    "DEFAULT_TIMEOUT_S",
    "BridgeError",
    "ChildSettlement",
    "Client",
    "CommandRun",
    "CompletionTerminal",
    "CompletionWaiver",
    "DeltaSide",
    "DiagnosticClassification",
    "DiagnosticDelta",
    "DiagnosticNormalization",
    "ExternalObservation",
    "FileHashSnapshot",
    "FileHashSnapshotEntry",
    "GateInput",
    "GateOutcome",
    "GateSide",
    "InvalidParams",
    "LedgerState",
    "MutationRecord",
    "NotSupported",
    "OpenWorkspaceChild",
    "ParsedDiagnostic",
    "ParsedDiagnostics",
    "ProgressEvent",
    "ProtocolError",
    "RemoteError",
    "ReportBinding",
    "RungComparison",
    "Session",
    "SnapshotStaleness",
    "Timeout",
    "ToolObservation",
    "TurngateError",
    "TurnProof",
    "UnparsedInput",
    "VerificationCheck",
    "VerificationCommand",
    "VerificationPreset",
    "VerificationReport",
    "VerificationSummary",
    "VerifyResult",
    "WaiverValidation",
    "WorkspaceChange",
    "WorkspaceObservation",
    "__version__",
    "bridge_command",
    "close_default_client",
    "content_digest",
    "decide_completion",
    "default_client",
    "derive_report_status",
    "diagnostic_classify",
    "diagnostic_delta",
    "effect_digest",
    "format_verification_summary",
    "gate_input",
    "parse_diagnostics",
    "running_under_pyodide",
    "snapshot_staleness",
    "summarize_reports",
    "validate_waiver",
]
