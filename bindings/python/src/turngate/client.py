"""``turngate.Client``: one connection to the turngate bridge, and the stateless API.

Under CPython a client starts the bridge as a child process (``turngate bridge --stdio``,
found as described in :mod:`turngate.discovery`) and talks JSON-RPC over its stdio
(:mod:`turngate.transport_subprocess`). Under Pyodide (``sys.platform == "emscripten"``) it
calls the bridge's pure entry point in-process (:mod:`turngate.transport_pyodide`); then the
stateless methods work and sessions raise :class:`~turngate.errors.NotSupported`.

Usage::

    with turngate.Client() as client:
        client.effect_digest([{"tool": "write", "path": "a.txt", "content_digest": "…"}])
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar, cast

from ._version import __version__
from ._api import bridge_method
from ._rpc import PROTOCOL_ID
from ._wire import to_wire, wire_list
from .discovery import bridge_command
from .errors import ProtocolError
from .facts import FactsMethods
from .facts_profiles import FactsProfileMethods
from .test_results import TestResultsMethods
from .turn_view import TurnView
from .session import Session
from .types import (
    AcceptanceCriteria,
    CompletionTerminal,
    CompletionWaiver,
    ExternalObservation,
    GateOutcome,
    GoalAchievement,
    LedgerState,
    LoopStatus,
    MutationRecord,
    ProgressEvent,
    VerificationCheck,
    VerificationReport,
    VerificationStatus,
    VerificationSummary,
    VerifierPolicyDecision,
    WaiverValidation,
    ProofVerification,
    CacheKey,
)

DEFAULT_TIMEOUT_S = 30.0
"""Default per-call timeout in seconds (``session.verify_commands`` has none by default)."""

STARTUP_TIMEOUT_S = 30.0
"""How long the ``initialize`` handshake may take, in seconds (node start-up included)."""

ProgressHandler = Callable[[ProgressEvent], None]
T = TypeVar("T")


class Transport(Protocol):
    """What a client needs from a transport (both built-in transports satisfy it)."""

    def call(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,
        on_progress: Callable[[str, Any], None] | None = None,
    ) -> Any:
        """Send one request (``method`` wire name, JSON-compatible ``params``) and return its
        ``result``. ``timeout`` is in seconds (``None`` = no limit); ``on_progress(method,
        params)`` receives this call's notifications. Raises a ``TurngateError`` subclass for
        an error response, a timeout or a dead bridge (docs/design.md §5)."""
        ...

    def close(self) -> int | None:
        """Stop the transport; returns the bridge's exit status (``None`` if unknown).
        Idempotent."""
        ...


def running_under_pyodide() -> bool:
    """True inside Pyodide (Emscripten), where no subprocess can be started."""
    return sys.platform == "emscripten"


def _progress_adapter(handler: ProgressHandler | None) -> Callable[[str, Any], None] | None:
    """Turn a ``ProgressEvent`` handler into a transport notification handler."""
    if handler is None:
        return None

    def on_notification(method: str, params: Any) -> None:
        if method == "progress":
            handler(ProgressEvent.from_wire(params, "progress"))

    return on_notification


class Client(FactsMethods, FactsProfileMethods, TestResultsMethods):
    """A connection to the turngate bridge; thread-safe; a context manager.

    Args:
        bridge: the turngate CLI to start (overrides ``TURNGATE_BRIDGE``; see
            :func:`turngate.discovery.bridge_command`).
        node: the node executable (overrides ``TURNGATE_NODE``).
        timeout: default per-call timeout in seconds (``None`` = no limit); each method also
            takes ``timeout=``. Default 30 s.
        startup_timeout: how long the ``initialize`` handshake may take, in seconds
            (default 30 s; it includes starting node).
        on_progress: called with a :class:`~turngate.types.ProgressEvent` for progress
            notifications of calls that were not given their own ``on_progress``; it runs on
            whichever calling thread is reading the bridge's output at the time (usually the
            caller's own) and its exceptions are ignored.
        env: environment of the bridge process (default: inherited), cwd: its working
            directory (relative session roots resolve against it).
        transport: an already built transport (tests, custom hosts); overrides all of the
            above except ``timeout``.

    The verification-facts methods (``diagnostic_delta``, ``gate_input``,
    ``parse_diagnostics``, ``file_hash_snapshot``, …) come from
    :class:`~turngate.facts.FactsMethods`; the profile, ladder and HUD ones
    (``ladder_plan``, ``hud_model``, ``hud_text``, ``profile_matches``,
    ``observation_from_command_result``, ``record_check_result``) from
    :class:`~turngate.facts_profiles.FactsProfileMethods`; ``parse_test_results`` from
    :class:`~turngate.test_results.TestResultsMethods`.

    Construction performs the ``initialize`` handshake. Raises :class:`BridgeError` when the
    bridge cannot be found or started or dies during the handshake, and
    :class:`ProtocolError` when it speaks another protocol than ``turngate.bridge.v1``.
    """

    def __init__(
        self,
        *,
        bridge: str | None = None,
        node: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        startup_timeout: float = STARTUP_TIMEOUT_S,
        on_progress: ProgressHandler | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.timeout = timeout
        self._close_lock = threading.Lock()
        self._closed = False
        if transport is not None:
            self._transport: Transport = transport
        elif running_under_pyodide():
            from .transport_pyodide import PyodideTransport

            self._transport = PyodideTransport()
        else:
            from .transport_subprocess import SubprocessTransport

            argv = bridge_command(bridge, node=node, env=env)
            self._transport = SubprocessTransport(
                argv, env=env, cwd=cwd, on_notification=_progress_adapter(on_progress)
            )
        try:
            hello = self._transport.call(
                "initialize",
                {"client": {"name": "turngate-python", "version": __version__, "language": "python"}},
                timeout=startup_timeout,
            )
            if not isinstance(hello, dict) or hello.get("protocol") != PROTOCOL_ID:
                got = hello.get("protocol") if isinstance(hello, dict) else hello
                raise ProtocolError(f"the bridge speaks {got!r}, not {PROTOCOL_ID!r}", code="protocol_mismatch")
        except BaseException:
            self._transport.close()
            raise
        self.protocol: str = PROTOCOL_ID
        """The protocol id the bridge reported (``"turngate.bridge.v1"``)."""
        self.bridge_version: str = str(hello.get("version", ""))
        """The bridge's version as reported by ``initialize``."""
        self.methods: frozenset[str] = frozenset(m for m in hello.get("methods", []) if isinstance(m, str))
        """Names of the methods the bridge serves (for feature detection)."""

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> int | None:
        """Shut the bridge down cleanly (``shutdown``, close stdin, wait up to 2 s, then kill)
        and reap it. Idempotent. Returns the bridge's exit status (``None`` in-process)."""
        with self._close_lock:
            if self._closed:
                return None
            self._closed = True
        return self._transport.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def call(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> Any:
        """Call any bridge method with raw wire params and return the raw result.

        Input: ``method`` (e.g. ``"ledger.digest"``), ``params`` (an object with snake_case
        keys; dataclasses inside are converted; ``None`` sends ``{}``), ``timeout`` in seconds (``None`` = the client's default,
        ``math.inf`` = no limit), ``on_progress`` for this call's progress notifications.
        Output: the result as parsed JSON. Raises the errors of :mod:`turngate.errors`.
        """
        # A mapping is converted; anything else is sent as given, so the bridge answers it
        # exactly as it answers any client (e.g. positional params → invalid_params, path "").
        wire = {} if params is None else to_wire(params)
        return self._send(method, wire, timeout=timeout, on_progress=on_progress)

    def _send(
        self,
        method: str,
        wire: Any,
        *,
        timeout: float | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> Any:
        """Like :meth:`call` for params that are already wire JSON (no conversion pass)."""
        chosen = self.timeout if timeout is None else timeout
        if chosen is not None and math.isinf(chosen):
            chosen = None
        adapter = None if on_progress is None else _progress_adapter(on_progress)
        return self._transport.call(method, wire, timeout=chosen, on_progress=adapter)

    # ------------------------------------------------------------------ stateless methods

    @bridge_method("ledger.digest", unwrap="effect_digest")
    def effect_digest(
        self, records: Sequence[MutationRecord | Mapping[str, Any]], *, timeout: float | None = None
    ) -> str:
        """Effect digest of mutation records (reference §2.2, docs/design.md §3).

        Input: rows ``{tool, path, content_digest}``. Output: lowercase hex SHA-256 over the
        escaped rows ``tool|path|content_digest`` sorted by (path, tool) and joined by
        ``\\n``; ``""`` for no rows. Raises :class:`InvalidParams` naming a malformed row.
        """
        result = self._send("ledger.digest", {"records": wire_list(records, "records")}, timeout=timeout)
        return _member(result, "effect_digest", str)

    @bridge_method("ledger.content_digest", unwrap="content_digest")
    def content_digest(self, metadata: Mapping[str, Any], *, timeout: float | None = None) -> str:
        """Content digest of a tool's metadata (reference §2.2): SHA-256 (lowercase hex) of
        ``metadata["after"]`` when it is a string, else of the RFC 8785 canonical JSON of the
        whole object. Raises :class:`InvalidParams` when ``metadata`` is not an object."""
        result = self._send("ledger.content_digest", {"metadata": to_wire(metadata)}, timeout=timeout)
        return _member(result, "content_digest", str)

    @bridge_method("gate.decide")
    def decide_completion(
        self,
        ledger: LedgerState | Mapping[str, Any],
        reports: Sequence[VerificationReport | Mapping[str, Any]] = (),
        waivers: Sequence[CompletionWaiver | Mapping[str, Any]] = (),
        allow_continuation: bool = False,
        observations: Sequence[ExternalObservation | Mapping[str, Any]] = (),
        *,
        timeout: float | None = None,
    ) -> GateOutcome:
        """The completion gate (reference §2.7 with docs/design.md §3's typed reasons).

        Input: the ledger ``{records, open_children?, observation_incomplete?}``, host
        reports, host waivers, whether a ``continue`` may be returned, and external
        observations. Output: a :class:`GateOutcome` — ``allow`` with a terminal
        (``narrative``/``waived``/``verified``), or ``continue``/``incomplete`` with reason,
        message and data. Raises :class:`InvalidParams`, or :class:`RemoteError` with code
        ``report_status_mismatch`` for a report whose status differs from its derived status.
        """
        params = {
            "ledger": to_wire(ledger),
            "reports": wire_list(reports, "reports"),
            "waivers": wire_list(waivers, "waivers"),
            "allow_continuation": allow_continuation,
            "observations": wire_list(observations, "observations"),
        }
        return GateOutcome.from_wire(self._send("gate.decide", params, timeout=timeout))

    @bridge_method("report.derive_status", unwrap="status")
    def derive_report_status(
        self,
        checks: Sequence[VerificationCheck | Mapping[str, Any]],
        residual_risks: Sequence[str] = (),
        *,
        timeout: float | None = None,
    ) -> VerificationStatus:
        """The status a report's checks imply (reference §1.3.1, first rule wins): ``failed``
        if a check failed; ``needs_review`` if a required check is needs_review/skipped or
        there are residual risks; ``skipped`` without checks; else ``passed``."""
        params = {"checks": wire_list(checks, "checks"), "residual_risks": wire_list(residual_risks, "residual_risks")}
        result = self._send("report.derive_status", params, timeout=timeout)
        return cast(VerificationStatus, _member(result, "status", str))

    @bridge_method("report.turn_view", unwrap="view")
    def turn_view(
        self,
        turn: Any,
        source: Literal["proof", "result"] = "proof",
        runs: Sequence[Mapping[str, Any]] | None = None,
        changes: Sequence[Mapping[str, Any]] | None = None,
        diffs: Sequence[Mapping[str, Any]] | None = None,
        diffs_unavailable: str | None = None,
        attempts: int | None = None,
        affected_targets: Sequence[Mapping[str, Any]] | None = None,
        hud: str | None = None,
        outputs: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> TurnView:
        """The ``turngate.turn_view.v1`` view model of a turn (issue 21): what ``turngate
        show`` prints. Input: ``turn``, a :class:`TurnProof` or a mapping with the same
        fields (``effect_digest``, ``records``, ``reports``, ``waivers_used``, ``outcome``,
        optional ``workspace``, ``evidence_logs``, ``trust``, ``started_at``,
        ``finished_at``); optionally how the checks ran (``runs``: ``id``, ``command``,
        ``duration_ms`` in ms, ``exit_code``, ``timed_out``, ``failure_class``, ``output``,
        ``log_path``, ``log_sha256``, ``failure_digest``), the observer's ``changes`` (``path``, ``change``,
        ``scope``), ``diffs`` (``path``, ``change``, ``diff``) or ``diffs_unavailable`` (why
        there are none), ``attempts``, ``affected_targets``, ``hud`` and the clean room's
        copied ``outputs`` (``dir``, ``paths``). Output: a
        :class:`TurnView`. Raises :class:`InvalidParams` naming the bad field
        (``turn.outcome.kind``)."""
        params: dict[str, Any] = {"turn": to_wire(turn), "source": source}
        optional = {
            "runs": None if runs is None else wire_list(runs, "runs"),
            "changes": None if changes is None else wire_list(changes, "changes"),
            "diffs": None if diffs is None else wire_list(diffs, "diffs"),
            "diffs_unavailable": diffs_unavailable,
            "attempts": attempts,
            "affected_targets": None if affected_targets is None else wire_list(affected_targets, "affected_targets"),
            "hud": hud,
            "outputs": None if outputs is None else dict(outputs),
        }
        params.update({key: value for key, value in optional.items() if value is not None})
        result = self._send("report.turn_view", params, timeout=timeout)
        if not isinstance(result, Mapping):
            raise ProtocolError("report.turn_view: expected an object", code="bad_result")
        return TurnView.from_wire(result.get("view"), "view")

    @bridge_method("verification.summary")
    def summarize_reports(
        self, reports: Sequence[VerificationReport | Mapping[str, Any]], *, timeout: float | None = None
    ) -> VerificationSummary:
        """Summary over reports (reference §1.4): counts and sorted, de-duplicated pending
        and failed subjects."""
        result = self._send("verification.summary", {"reports": wire_list(reports, "reports")}, timeout=timeout)
        return VerificationSummary.from_wire(result)

    @bridge_method("verification.summary_text", unwrap="text")
    def format_verification_summary(
        self, summary: VerificationSummary | Mapping[str, Any], *, timeout: float | None = None
    ) -> str:
        """The one-line summary text (reference §2.19), e.g.
        ``"Verification passed: 1 report, 2 required checks."``."""
        result = self._send("verification.summary_text", {"summary": to_wire(summary)}, timeout=timeout)
        return _member(result, "text", str)

    @bridge_method("waiver.validate")
    def validate_waiver(self, waiver: Any, *, timeout: float | None = None) -> WaiverValidation:
        """Validate a ``completion_waiver.v1`` (reference §1.11: both fields non-blank, kept
        as given). A bad waiver is a verdict (``valid=False`` with ``path`` and ``message``),
        not an exception."""
        result = self._send("waiver.validate", {"waiver": to_wire(waiver)}, timeout=timeout)
        return WaiverValidation.from_wire(result)

    @bridge_method("cache.key")
    def cache_key(self, input: Mapping[str, Any], *, timeout: float | None = None) -> CacheKey:
        """The result-cache key of one check (issue 20 item 1, ``turngate.cache_key.v1``).
        ``input`` is ``{tree, lockfiles, check: {command, shell, cwd, env, expect_exit,
        results_format, timeout_ms}, toolchain, platform: {os, arch}, outside, turngate}``
        (unknown fields refused). Returns :class:`CacheKey` (``key``, ``material``, ``schema``).
        Raises ``BridgeError`` with code ``invalid_params`` and the field's ``path`` (``tree``,
        ``check.command``, ...) for a malformed input."""
        result = self._send("cache.key", {"input": to_wire(input)}, timeout=timeout)
        return CacheKey.from_wire(result)

    @bridge_method("gate.fold")
    def fold_step_completions(
        self, terminals: Sequence[CompletionTerminal | Mapping[str, Any]], *, timeout: float | None = None
    ) -> CompletionTerminal:
        """Fold the completion terminals of several plan steps into one (reference §2.10):
        narrative entries and duplicates dropped; none left → ``narrative``; one → it;
        several sharing one digest → ``verified`` if any is, else the first (``waived``);
        otherwise ``distinct``."""
        params = {"terminals": wire_list(terminals, "terminals")}
        return CompletionTerminal.from_wire(self._send("gate.fold", params, timeout=timeout))

    @bridge_method("evidence.acceptance_criteria")
    def acceptance_criteria(self, loop_id: str, text: str, *, timeout: float | None = None) -> AcceptanceCriteria:
        """The machine criteria of one ACCEPTANCE.md text (reference §2.14): required commands
        with ids ``acceptance:<loop_id>:<line>``, and the lines that could not be read."""
        params = {"loop_id": loop_id, "text": text}
        return AcceptanceCriteria.from_wire(self._send("evidence.acceptance_criteria", params, timeout=timeout))

    @bridge_method("evidence.loop_status")
    def loop_status(self, state: str, *, timeout: float | None = None) -> LoopStatus:
        """The status a goal loop's STATE.md text names and whether the loop is active."""
        return LoopStatus.from_wire(self._send("evidence.loop_status", {"state": state}, timeout=timeout))

    @bridge_method("evidence.goal_achievement")
    def goal_achievement(
        self,
        llm_achieved: bool,
        reports: Sequence[VerificationReport | Mapping[str, Any]] = (),
        criteria: Sequence[Mapping[str, Any]] = (),
        *,
        timeout: float | None = None,
    ) -> GoalAchievement:
        """Goal-achievement gating (reference §2.15): the model's claim counts only when the
        host ``reports`` support it and every loop of the acceptance ``criteria`` (only
        ``id`` is read: pass ``[{"id": c.id} for c in criteria.commands]``) has a passing
        ``shell:<id>`` report."""
        params = {
            "llm_achieved": llm_achieved,
            "reports": wire_list(reports, "reports"),
            "criteria": [{"id": c["id"]} for c in criteria],
        }
        return GoalAchievement.from_wire(self._send("evidence.goal_achievement", params, timeout=timeout))

    @bridge_method("evidence.existence_checks", unwrap="paths")
    def existence_checks(self, command: str, *, timeout: float | None = None) -> list[str]:
        """The paths a shell command checks for existence (``test -f|-e P``, ``[ -f|-e P ]``,
        ``[[ -f|-e P ]]``), quotes removed, each once."""
        result = self._send("evidence.existence_checks", {"command": command}, timeout=timeout)
        return list(_member(result, "paths", list))

    @bridge_method("evidence.verifier_tool_policy")
    def verifier_tool_policy(
        self, tool: str, args: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> VerifierPolicyDecision:
        """The read-only verifier's tool policy (reference §2.18) for one tool call."""
        params: dict[str, Any] = {"tool": tool}
        if args is not None:
            params["args"] = to_wire(args)
        return VerifierPolicyDecision.from_wire(self._send("evidence.verifier_tool_policy", params, timeout=timeout))

    @bridge_method("proof.verify")
    def verify_proof(
        self,
        file_text: str,
        root: str | os.PathLike[str],
        public_key_file: str | os.PathLike[str] | None = None,
        allow_unsigned: bool = False,
        commit: str | None = None,
        *,
        timeout: float | None = None,
    ) -> ProofVerification:
        """Authenticate and re-check a proof file's text (issue 10), as ``turngate proof
        verify`` does: the DSSE signature against the trusted key (``public_key_file``, else
        the bridge host's ``TURNGATE_SIGNING_KEY``, else its user's key), the effect digest
        and every row against the disk under ``root``, the evidence logs, and with ``commit``
        the final git tree. An unsigned or foreign-signed proof is ``ok=False``
        (``unauthenticated``) unless ``allow_unsigned``; a verdict, not an exception."""
        params: dict[str, Any] = {
            "file_text": file_text,
            "root": os.fspath(root),
            "allow_unsigned": allow_unsigned,
        }
        if public_key_file is not None:
            params["public_key_file"] = os.fspath(public_key_file)
        if commit is not None:
            params["commit"] = commit
        return ProofVerification.from_wire(self._send("proof.verify", params, timeout=timeout))

    # ------------------------------------------------------------------ sessions

    @bridge_method("session.create")
    def create_session(
        self,
        root: str | os.PathLike[str],
        waivers: Sequence[CompletionWaiver | Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Session:
        """Open a host session on a workspace root; the baseline is taken now.

        Input: ``root`` (absolute, or relative to the bridge's cwd), host ``waivers`` the
        gate honours, and host ``options`` (``ignores``, ``use_git``, ``sandboxed``: the
        host's claim that the agent runs sandboxed, recorded as the proof's ``trust``;
        ``continue_from``: an earlier session's :meth:`Session.baseline`, so the session
        starts from it and everything changed since is in its ledger — docs/cli.md
        "Gapless turns"; refused with code ``invalid_snapshot`` when malformed or of another root).
        Output: a :class:`Session` (also a context manager that closes it). Raises :class:`InvalidParams` for a bad
        root and :class:`NotSupported` under Pyodide.
        """
        params: dict[str, Any] = {"root": os.fspath(root), "waivers": wire_list(waivers, "waivers")}
        if options is not None:
            params["options"] = to_wire(options)
        result = self._send("session.create", params, timeout=timeout)
        return Session(self, _member(result, "session_id", str))


def _member(result: Any, key: str, kind: type[T]) -> T:
    """``result[key]`` checked to be a ``kind``; a :class:`ProtocolError` otherwise."""
    if not isinstance(result, dict) or not isinstance(result.get(key), kind):
        raise ProtocolError(
            f"expected a result with {key!r} of type {kind.__name__}, got {result!r:.200}", code="bad_result"
        )
    value: T = result[key]
    return value


__all__ = ["Client", "DEFAULT_TIMEOUT_S", "STARTUP_TIMEOUT_S", "Transport", "running_under_pyodide"]
