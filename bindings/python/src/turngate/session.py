"""``turngate.Session``: one host session in the bridge — the Python face of
``@turngate/node``'s ``Session`` (issue 3), with snake_case names.

A session owns a workspace baseline, a mutation ledger, the reports recorded for the turn
and the host's waivers. Typical turn::

    with client.create_session(root) as session:
        session.observe_tool("write", 0, {"file_path": "a.txt", "after": "hello\\n"})
        result = session.verify_commands("tests", [command], bind=True)
        outcome = session.decide()       # GateOutcome(kind="allow", terminal=verified(d))

Methods are thread-safe (they are calls on the client). After :meth:`close` the session id
is unknown to the bridge and calls raise :class:`~turngate.errors.RemoteError` with code
``session_not_found``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ._api import bridge_method
from ._wire import to_wire, wire_list
from .errors import InvalidParams, ProtocolError
from .types import (
    ChildSettlement,
    GateOutcome,
    ExternalObservation,
    GoalAchievement,
    GoalCriteria,
    VerifierRun,
    RefusedReport,
    TurnEnd,
    ProgressEvent,
    SignedProof,
    ToolObservation,
    TurnProof,
    VerificationCommand,
    VerificationPreset,
    VerificationReport,
    VerificationSummary,
    VerifyResult,
    WorkspaceObservation,
)

if TYPE_CHECKING:
    from .client import Client

ProgressHandler = Callable[[ProgressEvent], None]


def _reports_list(reports: Any) -> list[Any]:
    """One report (dataclass or mapping) or a sequence of them → a wire list."""
    if isinstance(reports, (VerificationReport, Mapping)):
        return [to_wire(reports)]
    if isinstance(reports, (str, bytes)) or not isinstance(reports, Sequence):
        raise InvalidParams(
            f"reports: expected a report or a list of reports, got {type(reports).__name__}",
            path="reports",
        )
    return [to_wire(report) for report in reports]


def _field(result: Any, key: str) -> Any:
    if not isinstance(result, dict) or key not in result:
        raise ProtocolError(f"expected a result with {key!r}, got {result!r:.200}", code="bad_result")
    return result[key]


class Session:
    """A host session opened by :meth:`turngate.Client.create_session`.

    Attributes:
        id: the bridge's session id (e.g. ``"session-1"``), client: the owning client.
    """

    def __init__(self, client: Client, session_id: str) -> None:
        self.client = client
        self.id = session_id
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._closed and not self.client.closed:
            self.close()

    def __repr__(self) -> str:
        return f"Session(id={self.id!r})"

    def _call(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.client._send(method, {"session_id": self.id, **(params or {})}, **kwargs)  # noqa: SLF001

    @bridge_method("session.observe_tool")
    def observe_tool(
        self,
        tool: str,
        exit_code: int,
        metadata: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolObservation:
        """Observe one tool result into the ledger (reference §2.1): a successful ``write``,
        ``edit``, ``patch`` or ``download`` records its path and content digest; nested
        effects, ``changed_paths`` of a failed command and workspace children are honoured.

        Its evidence is read too (issue 13; reference §2.9, §2.13): a ``verification_report``
        in the metadata counts only with ``verification_author`` ``host`` or ``verifier``
        (others are refused, with a reason); a ``bash`` result whose metadata has a
        ``command`` covering a preset command yields an unbound ``shell:<id>`` report.

        Input: tool name, exit code, the tool's metadata (``{"file_path", "after", …}``).
        Output: a :class:`ToolObservation` — the rows ``added``, the ledger's
        ``effect_digest`` afterwards (``""`` while empty), the ``reports`` accepted and the
        ``refused_reports``.
        """
        params: dict[str, Any] = {"tool": tool, "exit_code": exit_code}
        if metadata is not None:
            params["metadata"] = to_wire(metadata)
        return ToolObservation.from_wire(self._call("session.observe_tool", params, timeout=timeout))

    @bridge_method("session.observe_workspace")
    def observe_workspace(self, *, timeout: float | None = None) -> WorkspaceObservation:
        """Re-read the workspace against the session's baseline and rebuild the ledger from
        the delta: changed paths join it with the SHA-256 of their bytes (``"deleted"`` for a
        deletion). Output: a :class:`WorkspaceObservation` (changes, completeness, unreadable
        paths, effect digest)."""
        return WorkspaceObservation.from_wire(self._call("session.observe_workspace", timeout=timeout))

    @bridge_method("session.settle_child")
    def settle_workspace_child(self, task_id: str, *, timeout: float | None = None) -> ChildSettlement:
        """Tell the session that the background workspace task ``task_id`` has finished
        (reference §2.4): a tool result whose metadata held ``{"workspace_child": task_id}``
        opened it, and :meth:`decide` answers ``open_children`` until it is settled.

        The child leaves the open children for good (later re-reads do not reopen it; a later
        tool result naming the same id opens a new child) and the workspace is re-read at
        once, so the child's writes join the ledger. Output: a :class:`ChildSettlement`
        (``settled`` is ``False`` when no open child had that id). Raises
        :class:`InvalidParams` (path ``task_id``) for a blank id.
        """
        return ChildSettlement.from_wire(
            self._call("session.settle_child", {"task_id": task_id}, timeout=timeout)
        )

    @bridge_method("session.record_reports", unwrap="recorded")
    def record_verification_reports(
        self,
        reports: VerificationReport | Mapping[str, Any] | Sequence[VerificationReport | Mapping[str, Any]],
        *,
        timeout: float | None = None,
    ) -> int:
        """Record host verification reports: one report or a list.

        Output: how many were recorded. Raises :class:`RemoteError` with code
        ``report_status_mismatch`` (``path`` ``reports.N.status``) when a report's status differs
        from the status derived from its checks — then nothing is recorded.
        """
        params = {"reports": _reports_list(reports)}
        return int(_field(self._call("session.record_reports", params, timeout=timeout), "recorded"))

    @bridge_method("session.reports", unwrap="reports")
    def verification_reports(self, *, timeout: float | None = None) -> list[VerificationReport]:
        """Every report recorded in the session, in recording order."""
        reports = _field(self._call("session.reports", timeout=timeout), "reports")
        if not isinstance(reports, list):
            raise ProtocolError(f"session.reports: expected a list, got {reports!r:.200}", code="bad_result")
        return [VerificationReport.from_wire(r, f"reports.{i}") for i, r in enumerate(reports)]

    @bridge_method("session.summary")
    def verification_summary(self, *, timeout: float | None = None) -> VerificationSummary:
        """Verification summary over the session's reports (reference §1.4)."""
        return VerificationSummary.from_wire(self._call("session.summary", timeout=timeout))

    @bridge_method("session.summary_text", unwrap="text")
    def verification_summary_text(self, *, timeout: float | None = None) -> str:
        """One-line summary text over the session's reports (reference §2.19)."""
        return str(_field(self._call("session.summary_text", timeout=timeout), "text"))

    @bridge_method("session.presets", unwrap="presets")
    def verification_presets(self, *, timeout: float | None = None) -> list[VerificationPreset]:
        """Verification presets detected at the workspace root (reference §2.17)."""
        presets = _field(self._call("session.presets", timeout=timeout), "presets")
        if not isinstance(presets, list):
            raise ProtocolError(f"session.presets: expected a list, got {presets!r:.200}", code="bad_result")
        return [VerificationPreset.from_wire(p, f"presets.{i}") for i, p in enumerate(presets)]

    @bridge_method("session.verify_commands")
    def verify_commands(
        self,
        subject: str,
        commands: Sequence[VerificationCommand | Mapping[str, Any]],
        bind: bool = False,
        *,
        on_progress: ProgressHandler | None = None,
        timeout: float | None = math.inf,
        isolation: Literal["clean-room", "in-place", "auto"] | None = None,
    ) -> VerifyResult:
        """Run verification commands in order (``sh -c`` in the root) and record the report.

        Input: the report ``subject``; commands (``required`` defaults to ``False``,
        ``expect_exit`` to ``0``, ``timeout_ms`` in ms); ``bind`` — snapshot the workspace
        before and after and bind the report to the effect digest if nothing changed in
        between (else it stays unbound and stale); ``on_progress`` receives
        ``check_started``/``check_finished`` :class:`ProgressEvent` objects; ``timeout`` in
        seconds, default none (each command has its own timeout); ``isolation`` — with
        ``bind``, where these checks run (``clean-room``, ``in-place`` or ``auto``), overriding
        the session's ``options["isolation"]`` for this call (docs/design.md §3b).
        Output: a :class:`VerifyResult` — the recorded ``report``, its ``binding`` (bound to
        the effect digest, or why not), one ``runs`` entry per command and ``isolation``
        (where the checks ran).
        """
        params: dict[str, Any] = {"subject": subject, "commands": wire_list(commands, "commands"), "bind": bind}
        if isolation is not None:
            params["isolation"] = isolation
        result = self._call("session.verify_commands", params, timeout=timeout, on_progress=on_progress)
        return VerifyResult.from_wire(result)

    @bridge_method("session.effect_digest", unwrap="effect_digest")
    def effect_digest(self, *, timeout: float | None = None) -> str:
        """The ledger's current effect digest (``""`` while the ledger is empty)."""
        return str(_field(self._call("session.effect_digest", timeout=timeout), "effect_digest"))

    @bridge_method("session.baseline", unwrap="baseline")
    def baseline(self, *, timeout: float | None = None) -> dict[str, Any]:
        """The current turn's baseline as a ``turngate.workspace_snapshot.v1`` dict (docs/cli.md
        "Gapless turns"): after :meth:`end_turn` ended a turn, the state that turn was
        judged on; while a turn is open, that turn's baseline. Pass it as a later
        ``create_session(root, options={"continue_from": ...})`` (another bridge process, a
        restarted host) so no change made between the two sessions is dropped. It holds one
        entry per file; keep it where the agent cannot write it."""
        result = _field(self._call("session.baseline", timeout=timeout), "baseline")
        if not isinstance(result, dict):
            raise ProtocolError(f"session.baseline: expected an object, got {result!r:.200}", code="bad_result")
        return result

    @bridge_method("session.decide")
    def decide(self, *, timeout: float | None = None) -> GateOutcome:
        """The completion gate over the session's ledger, reports and waivers
        (reference §2.7). Output: a :class:`GateOutcome`."""
        return GateOutcome.from_wire(self._call("session.decide", timeout=timeout))

    @bridge_method("session.end_turn")
    def end_turn(self, *, timeout: float | None = None) -> TurnEnd:
        """End the turn (issue 13; reference §1.17): re-read the workspace and decide.

        Allowed: ``ended`` is ``True``, ``result`` is a :class:`TurnResult` over the turn's own
        reports and the next turn begins with a fresh baseline and an empty ledger (the
        session keeps its reports, but none is a gate input of a later turn). Refused:
        ``ended`` is ``False``, ``outcome`` says why, and the turn stays open.
        """
        return TurnEnd.from_wire(self._call("session.end_turn", timeout=timeout))

    @bridge_method("session.goal_criteria")
    def goal_criteria(self, *, timeout: float | None = None) -> GoalCriteria:
        """The goal criteria of the current turn (reference §2.14), read when the turn
        started: ACCEPTANCE.md machine criteria of every active loop under ``.a3s/loops/``
        and ``.turngate/goals/``; they are shell-evidence candidates after the presets."""
        return GoalCriteria.from_wire(self._call("session.goal_criteria", timeout=timeout))

    @bridge_method("session.goal_achievement")
    def goal_achievement(self, llm_achieved: bool, *, timeout: float | None = None) -> GoalAchievement:
        """Goal-achievement gating over the turn's reports and criteria (reference §2.15):
        the model's claim never suffices alone."""
        params = {"llm_achieved": llm_achieved}
        return GoalAchievement.from_wire(self._call("session.goal_achievement", params, timeout=timeout))

    @bridge_method("session.record_observation", unwrap="observation")
    def record_observation(
        self, observation: ExternalObservation | Mapping[str, Any], *, timeout: float | None = None
    ) -> ExternalObservation:
        """Bind an external observation to the session (reference §1.14, §2.12): the newest
        per subject counts; ``workspace_change`` keeps the turn open (``continue`` once per
        turn with ``allow_continuation``). Raises :class:`InvalidParams` (path
        ``observation.payload`` for a payload over 8,192 bytes, ``observation.digest`` for a
        blank digest); nothing is recorded then."""
        result = self._call("session.record_observation", {"observation": to_wire(observation)}, timeout=timeout)
        return ExternalObservation.from_wire(_field(result, "observation"), "observation")

    @bridge_method("session.verifier_run", unwrap="verifier_run")
    def verifier_run(self, *, timeout: float | None = None) -> VerifierRun | None:
        """How the turn's read-only verifier run went, or ``None`` before it ran."""
        raw = _field(self._call("session.verifier_run", timeout=timeout), "verifier_run")
        return None if raw is None else VerifierRun.from_wire(raw, "verifier_run")

    @bridge_method("session.refused_reports", unwrap="refused_reports")
    def refused_reports(self, *, timeout: float | None = None) -> list[RefusedReport]:
        """Every report tool results carried that was refused in this session, in order."""
        raw = _field(self._call("session.refused_reports", timeout=timeout), "refused_reports")
        if not isinstance(raw, list):
            raise ProtocolError("session.refused_reports: refused_reports: expected a list")
        return [RefusedReport.from_wire(item, f"refused_reports.{i}") for i, item in enumerate(raw)]

    @bridge_method("session.proof", unwrap="proof")
    def proof(self, *, timeout: float | None = None) -> TurnProof:
        """The session's ``turn_proof.v1`` (docs/design.md §3 "Proof")."""
        return TurnProof.from_wire(_field(self._call("session.proof", timeout=timeout), "proof"), "proof")

    @bridge_method("session.signed_proof")
    def signed_proof(
        self,
        format: Literal["dsse", "in-toto"] = "dsse",
        key_file: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> SignedProof:
        """The session's turn proof signed as a DSSE envelope with Ed25519 (issue 10):
        ``format`` ``"dsse"`` (over the proof) or ``"in-toto"`` (over an in-toto Statement
        v1). The key is ``key_file`` (a PEM file outside the workspace), else the bridge
        host's ``TURNGATE_SIGNING_KEY``, else its user's key (generated on first use).
        Raises :class:`RemoteError` ``not_decided``, ``turn_not_allowed``,
        ``signing_key_invalid`` or ``signing_key_in_workspace`` (path ``key_file``)."""
        params: dict[str, Any] = {"format": format}
        if key_file is not None:
            params["key_file"] = os.fspath(key_file)
        return SignedProof.from_wire(self._call("session.signed_proof", params, timeout=timeout))

    @bridge_method("session.close")
    def close(self, *, timeout: float | None = None) -> None:
        """Close the session: running checks are killed (their calls raise
        :class:`RemoteError` ``session_closed``) and the id becomes unknown. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._call("session.close", timeout=timeout)
