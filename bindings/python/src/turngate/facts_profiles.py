"""Verification facts II (reference harn-verification.md §1.4, §1.5, §1.9, §1.10,
§3.2–3.6): which checks apply to an edit, cheapest trustworthy first (the ladder plan), what
the HUD shows, and check results as profile observations.

The pure ``facts.*`` methods of this part as :class:`~turngate.Client` methods (mixed in
from :class:`FactsProfileMethods`; also under Pyodide) and their results as dataclasses.
Field names are the wire keys, with Harn's camelCase spellings (``durationMs``,
``failureSignature``, ``warmMs``) where Harn uses them. Profile rows and record sets are
plain dicts (they carry any extra keys the caller stores in them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._api import bridge_method
from ._wire import WireModel, to_wire, wire_list
from .facts import FileHashSnapshot
from .errors import ProtocolError

LadderSkipReason = Literal[
    "missing_or_invalid_rung",
    "below_min_rung",
    "above_max_rung",
    "resource_class_filtered",
    "stale_prone_filtered",
    "missing_command",
]
"""Why a matching row is not runnable (reference §1.9; the first failing check decides)."""

LadderReason = Literal["no_profile_rows", "no_matching_runnable_rows", "profile_rows_selected"]
"""Why a ladder plan selected what it did."""

FreshnessStatus = Literal["unbound", "bound_fresh", "bound_stale", "unknown_current_hashes"]
"""The last check's freshness as the HUD reports it (reference §1.10)."""


@dataclass(kw_only=True)
class ProfileMatch(WireModel):
    """A row that applies to a query: ``specificity`` is the bit set of its declared
    selectors (repo 1, dir 2, language 4, task 8); ``index`` its position in ``rows``."""

    row: dict[str, Any]
    specificity: int
    index: int


@dataclass(kw_only=True)
class LadderEntry(WireModel):
    """A runnable row of a ladder plan. ``p95_ms`` is the expected duration in ms (of
    ``timing_kind``; ``unknown_p95_ms`` when the row has no timing); ``sort_key`` is
    ``[rung, resource rank, p95_ms, -specificity, index]``."""

    row_id: str
    row: dict[str, Any]
    rung: str
    rung_rank: int
    command: Any
    runnable: Literal[True]
    granularity: Any
    trust: Any
    resource_class: str
    p95_ms: int
    timing_kind: str
    warm_state: Any
    specificity: int
    index: int
    sort_key: list[int]
    background: Any


@dataclass(kw_only=True)
class LadderSkip(WireModel):
    """A matching row that was not selected, and why."""

    row_id: str
    reason: LadderSkipReason
    specificity: int
    index: int


@dataclass(kw_only=True)
class LadderPlan(WireModel):
    """``harn.verification.ladder_plan.v1`` (reference §1.9): ``selected`` cheapest first,
    ``skipped`` in match order, ``fallback`` when nothing was selected."""

    schema: Literal["harn.verification.ladder_plan.v1"]
    query: Any
    matches: list[ProfileMatch]
    selected: list[LadderEntry]
    skipped: list[LadderSkip]
    fallback: bool
    reason: LadderReason


@dataclass(kw_only=True)
class HudFreshness(WireModel):
    """The last check's bound snapshot against the current hashes."""

    schema: Literal["harn.verification.snapshot_staleness.v1"]
    status: FreshnessStatus
    stale: bool
    fresh: bool
    staleFiles: list[str]
    stale_files: list[str]
    changed_files: list[str]
    advisory: bool
    reason: str


@dataclass(kw_only=True)
class HudLastCheck(WireModel):
    """The last check: ``at_ms`` (ms since the epoch), ``age_ms`` and its label ``age``."""

    rung: str
    verdict: str
    at_ms: int
    age_ms: int
    age: str
    freshness: HudFreshness


@dataclass(kw_only=True)
class HudEntry(WireModel):
    """A ladder entry as the HUD shows it: ``command`` is a label, ``p95`` a duration label."""

    row_id: str
    rung: str
    command: str
    label: str
    p95_ms: int
    p95: str
    timing_kind: str
    resource_class: str
    granularity: Any
    trust: Any
    row: Any


@dataclass(kw_only=True)
class HudPlans(WireModel):
    """The two plans the HUD was built from."""

    next: LadderPlan
    full: LadderPlan


@dataclass(kw_only=True)
class HudModel(WireModel):
    """``harn.verification.hud_model.v1`` (reference §1.10). For a state that is not an
    object only ``schema``, ``visible`` (false), ``reason`` (``missing_state``) and ``lines``
    are set; otherwise everything but ``lines``."""

    schema: Literal["harn.verification.hud_model.v1"]
    visible: bool
    reason: Literal["missing_state", "verification_facts_available", "no_verification_facts"]
    lines: list[Any] | None = None
    dir: str | None = None
    query: dict[str, Any] | None = None
    elapsed_ms: int | None = None
    elapsed: str | None = None
    since_last_edit_ms: int | None = None
    since_last_edit: str | None = None
    last_check: HudLastCheck | None = None
    next_check: HudEntry | None = None
    full_check: HudEntry | None = None
    plans: HudPlans | None = None

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`; a full model keeps its ``null`` members."""
        out = super().to_wire()
        if self.reason != "missing_state":
            for key in ("since_last_edit_ms", "since_last_edit", "last_check", "next_check", "full_check"):
                out.setdefault(key, None)
        return out


@dataclass(kw_only=True)
class CheckObservation(WireModel):
    """A profile observation (reference §2.7): ``durationMs`` in ms, ``exit`` (124 when the
    check timed out), ``failureSignature`` (none when the check passed)."""

    durationMs: int | None = None
    warm: bool | None = None
    at: str | None = None
    exit: int | None = None
    failureSignature: str | None = None
    snapshot: dict[str, Any] | None = None


@dataclass(kw_only=True)
class RecordedCheck(WireModel):
    """``facts.record_check_result``: the observation, the updated row (``None`` for an
    unknown row id) and the record set after recording (``profiles``)."""

    result: Any
    observation: CheckObservation
    row: dict[str, Any] | None
    snapshot: Any
    profiles: dict[str, Any] | None

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping ``row``, ``snapshot`` and ``profiles`` when null."""
        out = super().to_wire()
        for key in ("row", "snapshot", "profiles"):
            out.setdefault(key, None)
        return out


@dataclass(kw_only=True)
class CheckProbe(WireModel):
    """A probe's run: ``status`` (``not_configured`` without a probe), ``exit`` (124 when it
    timed out), ``durationMs`` in ms; ``error`` when the probe spec could not be run."""

    status: str
    exit: int | None
    durationMs: int | None
    stdout: str
    stderr: str
    error: str | None = None


@dataclass(kw_only=True)
class ToolchainFact(WireModel):
    """``facts.toolchain`` (reference §1.6): ``available`` only when the probe exited 0 in
    time; ``version`` the first capture of the version pattern."""

    id: str
    name: str
    available: bool
    version: str | None
    raw_version: str
    cache_identity: dict[str, Any]
    probe: CheckProbe


@dataclass(kw_only=True)
class WarmStateFact(WireModel):
    """``facts.warm_state`` (reference §1.7): ``ready`` (declared, else the probe) decides
    ``timing_kind``; ``warm_ms`` / ``cold_ms`` / ``expected_warm_delta_ms`` in ms."""

    id: str
    name: str
    configured: bool
    available: bool
    ready: bool
    warm: bool
    timing_kind: Literal["warm", "cold"]
    mode: str
    expected_warm_delta_ms: int | None
    warm_ms: int | None
    cold_ms: int | None
    cache_identity: dict[str, Any]
    probe: CheckProbe


@dataclass(kw_only=True)
class CheckCommandResult(WireModel):
    """The command result of a check the bridge ran (``duration_ms`` in ms; ``stdout`` and
    ``combined`` hold the captured interleaved output)."""

    ok: bool
    success: bool
    status: Literal["completed", "failed", "timed_out", "cancelled"]
    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    combined: str
    duration_ms: int
    output_path: str | None = None
    spawn_error: str | None = None


@dataclass(kw_only=True)
class RunCheckResult(WireModel):
    """``facts.run_check``: the result, its observation, the updated row (``None`` when the
    store has no such row or ``record`` was false) and the snapshot taken before launch."""

    result: CheckCommandResult
    observation: CheckObservation
    row: dict[str, Any] | None
    snapshot: FileHashSnapshot | None

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping ``row`` and ``snapshot`` when null."""
        out = super().to_wire()
        for key in ("row", "snapshot"):
            out.setdefault(key, None)
        return out


@dataclass(kw_only=True)
class BackgroundStarted(WireModel):
    """A background command the bridge started: ``pid`` leads its process group;
    ``handle_id`` is valid in that bridge process only."""

    handle_id: str
    pid: int
    command: str
    started_at_ms: int
    background: Literal[True]


@dataclass(kw_only=True)
class StartedCheck(WireModel):
    """``facts.start_check``: pass it to :meth:`~FactsProfileMethods.finish_check`."""

    row_id: str
    started: BackgroundStarted
    observation_options: dict[str, Any]
    snapshot: FileHashSnapshot | None

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping a null ``snapshot``."""
        out = super().to_wire()
        out.setdefault("snapshot", None)
        return out


@dataclass(kw_only=True)
class FinishedCheck(WireModel):
    """``facts.finish_check``: ``result`` is ``{"status": "running", …}`` when the wait ran
    out (then ``observation`` and ``row`` are ``None`` and nothing was recorded)."""

    result: dict[str, Any]
    observation: CheckObservation | None
    row: dict[str, Any] | None
    snapshot: FileHashSnapshot | None

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping null members."""
        out = super().to_wire()
        for key in ("observation", "row", "snapshot"):
            out.setdefault(key, None)
        return out


@dataclass(kw_only=True)
class WarmStateReceipt(WireModel):
    """``facts.start_warm_state`` (reference §1.8)."""

    id: str
    name: str
    status: Literal["ready", "starting", "not_configured"]
    reused: bool
    handle_id: str | None
    started: BackgroundStarted | None
    initial_fact: WarmStateFact
    fact: WarmStateFact
    row: Any

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping null members."""
        out = super().to_wire()
        for key in ("handle_id", "started"):
            out.setdefault(key, None)
        return out


@dataclass(kw_only=True)
class WarmStateCancel(WireModel):
    """How the background process group was stopped."""

    cancelled: bool
    handle_id: str
    result: dict[str, Any] | None


@dataclass(kw_only=True)
class WarmStateTeardown(WireModel):
    """``facts.teardown_warm_state``: ``cancelled`` is true only the first time."""

    id: str
    name: str
    status: Literal["torn_down"]
    handle_id: str | None
    cancelled: bool
    cancel: WarmStateCancel | None
    teardown: CheckCommandResult | None
    fact: WarmStateFact | None
    row: Any

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, keeping null members."""
        out = super().to_wire()
        for key in ("handle_id", "cancel", "teardown", "fact"):
            out.setdefault(key, None)
        return out


def _params(**values: Any) -> dict[str, Any]:
    return {key: to_wire(value) for key, value in values.items() if value is not None}


class FactsProfileMethods:
    """The profile, ladder and HUD ``facts.*`` methods of :class:`~turngate.Client` (a mixin).
    Each raises what :meth:`Client.call` raises, notably :class:`InvalidParams` whose
    ``path`` names the bad field (``options.min_rung``, ``options.profiles.rows.0.scope.dir``,
    ``result.exit_code``, ``row_id``)."""

    if TYPE_CHECKING:
        _send: Callable[..., Any]

    @bridge_method("facts.profile_matches", unwrap="matches")
    def profile_matches(
        self,
        query: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        store_dir: str | None = None,
        timeout: float | None = None,
    ) -> list[ProfileMatch]:
        """The rows of ``options["profiles"]`` (a record set ``{schemaVersion, rows}``) that
        apply to ``query`` (``{repo?, path?, language?, task?}``), most specific first
        (reference §1.5, §3.5; ``scope.dir`` is a glob matched against ``path``).
        ``store_dir``: read the rows from the profile store :meth:`run_check` records into,
        as seen from ``options["dir"]`` (stdio bridge only; :class:`InvalidParams` with
        ``path`` ``options.dir`` for an absolute or ``..`` dir)."""
        params = _params(query=query, options=options, store_dir=store_dir)
        result = self._send("facts.profile_matches", params, timeout=timeout)
        matches = result.get("matches") if isinstance(result, dict) else None
        if not isinstance(matches, list):
            raise ProtocolError("matches: expected a list", code="bad_result")
        return [ProfileMatch.from_wire(m, f"matches.{i}") for i, m in enumerate(matches)]

    @bridge_method("facts.ladder_plan")
    def ladder_plan(
        self,
        query: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        store_dir: str | None = None,
        timeout: float | None = None,
    ) -> LadderPlan:
        """Plan the check ladder for ``query`` (reference §1.9). ``options``: ``profiles``,
        ``min_rung`` / ``max_rung`` (``"R2"``, ``"2"`` or ``2``), ``resource_classes``,
        ``timing_kind`` (warm | cold | any | auto), ``warm_state_facts`` (list or dict),
        ``unknown_p95_ms`` (default 999999), ``allow_stale_prone``, ``limit``, ``dir``.
        ``store_dir``: plan over the profile store :meth:`run_check` records into, as seen
        from ``options["dir"]`` (e.g. ``"packages/core"``; stdio bridge only), instead of
        ``options["profiles"]``."""
        params = _params(query=query, options=options, store_dir=store_dir)
        result = self._send("facts.ladder_plan", params, timeout=timeout)
        return LadderPlan.from_wire(result)

    @bridge_method("facts.hud_model")
    def hud_model(
        self,
        state: Any,
        options: Mapping[str, Any] | None = None,
        *,
        store_dir: str | None = None,
        timeout: float | None = None,
    ) -> HudModel:
        """The HUD model of ``state`` (reference §1.10): elapsed, since last edit, the last
        check's age and freshness, the next and full-verify ladder rows. Pass
        ``options["now_ms"]`` (ms since the epoch) for a deterministic answer.
        ``store_dir``: the rows come from the profile store, seen from ``options["dir"]``
        else ``state["dir"]`` (stdio bridge only)."""
        params = {"state": to_wire(state), **_params(options=options, store_dir=store_dir)}
        return HudModel.from_wire(self._send("facts.hud_model", params, timeout=timeout))

    @bridge_method("facts.hud_text", unwrap="text")
    def hud_text(
        self,
        model_or_state: Any,
        options: Mapping[str, Any] | None = None,
        *,
        store_dir: str | None = None,
        timeout: float | None = None,
    ) -> str:
        """The HUD as terminal text (reference §4.1), ``""`` when nothing is known.
        ``model_or_state``: a :class:`HudModel` (or its wire dict) or a HUD state;
        ``store_dir`` as for :meth:`hud_model`."""
        params = {"model_or_state": to_wire(model_or_state), **_params(options=options, store_dir=store_dir)}
        result = self._send("facts.hud_text", params, timeout=timeout)
        text = result.get("text") if isinstance(result, dict) else None
        if not isinstance(text, str):
            raise ProtocolError("text: expected str", code="bad_result")
        return text

    @bridge_method("facts.observation_from_command_result")
    def observation_from_command_result(
        self, result: Mapping[str, Any], options: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> CheckObservation:
        """The profile observation of a command result (reference §1.4, §2.2–2.4)."""
        params = {"result": to_wire(result), **_params(options=options)}
        return CheckObservation.from_wire(self._send("facts.observation_from_command_result", params, timeout=timeout))

    @bridge_method("facts.record_check_result")
    def record_check_result(
        self,
        row_id: str | int,
        result: Mapping[str, Any],
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> RecordedCheck:
        """Record ``result`` into row ``row_id`` of ``options["profiles"]`` (a pure reducer,
        reference §1.4, §3.2, §3.3): returns the observation, the updated row and the new
        record set (``updatedAt`` from ``options["now_ms"]``)."""
        params = {"row_id": row_id, "result": to_wire(result), **_params(options=options)}
        return RecordedCheck.from_wire(self._send("facts.record_check_result", params, timeout=timeout))

    @bridge_method("facts.run_check")
    def run_check(
        self,
        root: str,
        store_dir: str,
        row_id: str,
        spec: Any,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> RunCheckResult:
        """Run one check and record its timing into ``<store_dir>/verification-profiles.json``
        (reference §1.4; stdio bridge only). ``spec``: an argv list, ``{"argv": [...]}`` or
        ``{"mode": "shell", "command": ...}``; ``options["snapshot_paths"]`` are hashed before
        it starts. Raises :class:`RemoteError` ``background_not_supported`` or
        ``profile_store_invalid``, :class:`InvalidParams` naming the field."""
        params = {"root": root, "store_dir": store_dir, "row_id": row_id, "spec": to_wire(spec), **_params(options=options)}
        return RunCheckResult.from_wire(self._send("facts.run_check", params, timeout=timeout))

    @bridge_method("facts.toolchain", unwrap="facts")
    def toolchain(
        self,
        root: str,
        rows: list[Mapping[str, Any]],
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> list[ToolchainFact]:
        """Toolchain identity facts (reference §1.6; stdio bridge only): every row's version
        probe, in parallel and bounded; a missing binary is ``available=False``."""
        params = {"root": root, "rows": wire_list(rows, "rows"), **_params(options=options)}
        result = self._send("facts.toolchain", params, timeout=timeout)
        return [ToolchainFact.from_wire(f, f"facts.{i}") for i, f in enumerate(result["facts"])]

    @bridge_method("facts.warm_state", unwrap="facts")
    def warm_state(
        self,
        root: str,
        rows: list[Mapping[str, Any]],
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> list[WarmStateFact]:
        """Warm-state facts (reference §1.7; stdio bridge only): declared readiness, else the
        readiness probe; pass them to :meth:`ladder_plan` as ``warm_state_facts``."""
        params = {"root": root, "rows": wire_list(rows, "rows"), **_params(options=options)}
        result = self._send("facts.warm_state", params, timeout=timeout)
        return [WarmStateFact.from_wire(f, f"facts.{i}") for i, f in enumerate(result["facts"])]

    @bridge_method("facts.start_check")
    def start_check(
        self,
        root: str,
        row_id: str,
        spec: Any,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> StartedCheck:
        """Start a check in the background (reference §1.4; stdio bridge only)."""
        params = {"root": root, "row_id": row_id, "spec": to_wire(spec), **_params(options=options)}
        return StartedCheck.from_wire(self._send("facts.start_check", params, timeout=timeout))

    @bridge_method("facts.finish_check")
    def finish_check(
        self,
        store_dir: str,
        receipt: Any,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> FinishedCheck:
        """Wait for a started check (60 s by default) and record it (reference §1.4).
        ``receipt``: a :class:`StartedCheck` or its wire dict, from this same bridge."""
        params = {"store_dir": store_dir, "receipt": to_wire(receipt), **_params(options=options)}
        return FinishedCheck.from_wire(self._send("facts.finish_check", params, timeout=timeout))

    @bridge_method("facts.start_warm_state")
    def start_warm_state(
        self,
        root: str,
        row: Mapping[str, Any],
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> WarmStateReceipt:
        """Start a row's warm state unless it is ready or already warming (reference §1.8)."""
        params = {"root": root, "row": to_wire(row), **_params(options=options)}
        return WarmStateReceipt.from_wire(self._send("facts.start_warm_state", params, timeout=timeout))

    @bridge_method("facts.teardown_warm_state")
    def teardown_warm_state(
        self,
        root: str,
        receipt: Any,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> WarmStateTeardown:
        """Stop a warm state's process group, then run its stop command (reference §1.8).
        ``receipt``: a :class:`WarmStateReceipt` or its wire dict."""
        params = {"root": root, "receipt": to_wire(receipt), **_params(options=options)}
        return WarmStateTeardown.from_wire(self._send("facts.teardown_warm_state", params, timeout=timeout))


__all__ = [
    "BackgroundStarted",
    "FinishedCheck",
    "StartedCheck",
    "WarmStateCancel",
    "WarmStateReceipt",
    "WarmStateTeardown",
    "CheckCommandResult",
    "CheckProbe",
    "RunCheckResult",
    "ToolchainFact",
    "WarmStateFact",
    "CheckObservation",
    "FactsProfileMethods",
    "FreshnessStatus",
    "HudEntry",
    "HudFreshness",
    "HudLastCheck",
    "HudModel",
    "HudPlans",
    "LadderEntry",
    "LadderPlan",
    "LadderReason",
    "LadderSkip",
    "LadderSkipReason",
    "ProfileMatch",
    "RecordedCheck",
]
