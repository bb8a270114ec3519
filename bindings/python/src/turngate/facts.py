"""Verification facts (Harn ``std/verification``; reference harn-verification.md, docs/design.md §4):
is a failure new, unchanged, advanced, regressed or cleared — and is the evidence still
about the current bytes?

The ``facts.*`` bridge methods as :class:`Client` methods (mixed in from
:class:`FactsMethods`) and their results as dataclasses. Field names are the wire keys,
which keep Harn's own spellings — including its camelCase ``feedsGates``, ``staleFiles`` and
``rowId`` next to the snake_case twins — so results compare with Harn's.

* :meth:`FactsMethods.snapshot_staleness`, :meth:`~FactsMethods.diagnostic_classify`,
  :meth:`~FactsMethods.diagnostic_delta`, :meth:`~FactsMethods.gate_input`,
  :meth:`~FactsMethods.parse_diagnostics` are pure (also under Pyodide);
* :meth:`FactsMethods.file_hash_snapshot` reads files (stdio bridge only).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._api import bridge_method
from ._wire import M, WireModel, to_wire, wire_list

BindingStatus = Literal["unbound", "bound_fresh", "bound_stale"]
"""Whether a diagnostic is bound to the current bytes (reference §1.2, §1.5)."""

DeltaStatus = Literal["advisory", "cleared", "initialized", "advanced", "regressed", "unchanged"]
"""Status of a diagnostic delta (reference §1.11)."""

DeltaReason = Literal[
    "current_diagnostic_does_not_feed_gates",
    "current_result_is_passing",
    "current_has_no_gate_bearing_failure_signature",
    "no_prior_gate_bearing_failure",
    "diagnostic_count_decreased",
    "diagnostic_count_increased",
    "same_diagnostic_signature_set",
    "diagnostic_signature_set_changed",
    "new_diagnostics_added_without_clearing_prior_signatures",
]
"""The decision-table row that decided a delta (reference §1.11, one per row)."""

RungOutcome = Literal["not_applicable", "same_or_higher", "lower", "unranked"]
"""How the rung rule judged a green that would clear a failure (docs/design.md §4)."""

DiagnosticFormat = Literal["tsc", "eslint", "sarif", "cargo", "ruff", "pyright", "go_vet", "rdjson", "rdjsonl"]
"""Tool output formats :meth:`FactsMethods.parse_diagnostics` reads."""

DiagnosticSeverity = Literal["error", "warning", "info"]
"""Normalized severity of a parsed diagnostic."""

FileHashAlgorithm = Literal["fnv1a64", "sha256"]
"""``fnv1a64``: Harn's unsigned decimal FNV-1a 64 (reference §3.1); ``sha256``: lowercase hex."""


@dataclass(kw_only=True)
class SnapshotStaleness(WireModel):
    """``harn.verification.snapshot_staleness.v1`` (reference §1.2). ``staleFiles``,
    ``stale_files`` and ``changed_files`` list the same stale paths in byte order."""

    schema: Literal["harn.verification.snapshot_staleness.v1"]
    status: BindingStatus
    stale: bool
    fresh: bool
    staleFiles: list[str]
    stale_files: list[str]
    changed_files: list[str]
    advisory: bool
    reason: str


@dataclass(kw_only=True)
class DiagnosticClassification(WireModel):
    """A diagnostic envelope judged against the current hashes (reference §1.5): ``rung``
    (trimmed, only when it binds) and ``rowId`` are copied; ``feedsGates`` is true only for
    ``bound_fresh``."""

    rung: str | None = None
    rowId: Any = None
    status: BindingStatus
    staleFiles: list[str]
    feedsGates: bool
    advisory: bool
    reason: str


@dataclass(kw_only=True)
class DiagnosticNormalization(WireModel):
    """The merged signature-normalization config of a delta (reference §3.7). ``None`` =
    absent; a key the bridge sent as ``null`` is sent back as ``null`` by :meth:`to_wire`,
    and unknown keys from profile rows are kept (:meth:`wire_extra`)."""

    lowercase: bool | None = None
    strip_ansi: bool | None = None
    strip_locations: bool | None = None
    strip_temp_paths: bool | None = None
    collapse_whitespace: bool | None = None
    include_path: bool | None = None
    include_code: bool | None = None
    include_severity: bool | None = None
    max_chars: int | str | None = None
    replacements: list[str | dict[str, Any]] | None = None
    strip_patterns: str | list[str] | None = None
    stripPatterns: str | list[str] | None = None
    ignore_patterns: str | list[str] | None = None
    ignorePatterns: str | list[str] | None = None

    @classmethod
    def from_wire(cls: type[M], data: Any, path: str = "") -> M:
        """As :meth:`WireModel.from_wire`, also remembering which known keys were ``null``."""
        instance = super().from_wire(data, path)
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        nulls = tuple(key for key, value in data.items() if value is None and key in names)
        if nulls:
            object.__setattr__(instance, "_wire_nulls", nulls)
        return instance

    def to_wire(self) -> dict[str, Any]:
        """As :meth:`WireModel.to_wire`, re-emitting the keys that arrived as ``null``."""
        out = super().to_wire()
        for key in getattr(self, "_wire_nulls", ()):
            if getattr(self, key) is None:
                out[key] = None
        return out


@dataclass(kw_only=True)
class DeltaSide(WireModel):
    """One side of a delta: its diagnostic ``count``, whether it feeds gates, and every
    normalized signature (deduplicated, byte order) — also when it does not feed gates."""

    count: int
    feedsGates: bool
    feeds_gates: bool
    signatures: list[str]


@dataclass(kw_only=True)
class DiagnosticDelta(WireModel):
    """``harn.verification.diagnostic_delta.v1`` (reference §1.11). ``removed`` / ``added``
    / ``persisted`` are gate signatures (only sides that feed gates contribute);
    ``count_delta`` (current minus previous count) is present only when both sides feed
    gates."""

    schema: Literal["harn.verification.diagnostic_delta.v1"]
    status: DeltaStatus
    progress_credit: bool
    feedsGates: bool
    feeds_gates: bool
    advisory: bool
    reason: DeltaReason
    previous: DeltaSide
    current: DeltaSide
    removed: list[str]
    added: list[str]
    persisted: list[str]
    same_signature_set: bool
    normalization: DiagnosticNormalization
    count_delta: int | None = None


@dataclass(kw_only=True)
class GateSide(WireModel):
    """One side of a gate input: its ``classification`` (Harn's classify result, an
    embedded one, or the unclassified shape) and the ``value`` the delta compared."""

    classification: dict[str, Any]
    value: dict[str, Any]


@dataclass(kw_only=True)
class RungComparison(WireModel):
    """The rung rule's judgement (docs/design.md §4): ranks are 0–5 (``R0``–``R5``), ``None``
    when a rung is absent or does not rank."""

    previous_rung: str | None
    current_rung: str | None
    previous_rank: int | None
    current_rank: int | None
    outcome: RungOutcome


@dataclass(kw_only=True)
class GateInput(WireModel):
    """``harn.verification.gate_input.v1`` (reference §1.12) plus ``rung_comparison``.
    ``status`` is the delta's status when the current side feeds gates, else ``advisory``
    (also for a lower-rung green: reason ``lower_rung_green``, or ``unranked_green``)."""

    schema: Literal["harn.verification.gate_input.v1"]
    status: str
    reason: str
    feedsGates: bool
    feeds_gates: bool
    advisory: bool
    progress_credit: bool
    no_progress: bool
    gate_bearing_failure: bool
    blocks_completion: bool
    stale: bool
    stale_files: Any
    previous: GateSide
    current: GateSide
    delta: DiagnosticDelta
    rung_comparison: RungComparison


@dataclass(kw_only=True)
class ParsedDiagnostic(WireModel):
    """One diagnostic from tool output: 1-based ``line`` / ``column`` (``None`` when the tool
    gives none), the tool's rule or error ``code``, ``source`` naming the tool; SARIF
    results keep their ``partialFingerprints`` as ``fingerprints``."""

    path: str | None
    line: int | None
    column: int | None
    severity: DiagnosticSeverity
    code: str | None
    message: str
    source: str
    fingerprints: dict[str, str] | None = None


@dataclass(kw_only=True)
class UnparsedInput(WireModel):
    """Input a parser could not read: its 1-based ``line`` (line formats) or JSON
    ``pointer`` (document formats), the ``text`` and the ``reason``."""

    line: int | None
    pointer: str | None
    text: str
    reason: str


@dataclass(kw_only=True)
class ParsedDiagnostics(WireModel):
    """``turngate.parsed_diagnostics.v1``: pass it as one side of
    :meth:`FactsMethods.diagnostic_delta`. A run whose output could not be read has
    ``unparsed`` entries and may have no diagnostics — pair it with the tool's exit status."""

    schema: Literal["turngate.parsed_diagnostics.v1"]
    format: DiagnosticFormat
    diagnostics: list[ParsedDiagnostic]
    unparsed: list[UnparsedInput]


@dataclass(kw_only=True)
class FileHashSnapshotEntry(WireModel):
    """One ``files`` entry of a file-hash snapshot (reference §2.1): ``size`` in bytes,
    ``mtime_ms`` in milliseconds; without a code index ``known`` is false and the
    ``indexed_*`` fields are ``None``."""

    path: str
    known: bool
    readable: bool
    hash: str | None
    hash_source: Literal["indexed", "disk", "missing"]
    size: int | None
    mtime_ms: int | None
    indexed_hash: str | None
    indexed_mtime_ms: int | None
    last_edit_seq: int


@dataclass(kw_only=True)
class FileHashSnapshot(WireModel):
    """A file-hash snapshot (reference §1.1, §2.1): ``snapshot`` maps root-relative paths
    to hashes, ``missing`` lists the paths that could not be read (or lie outside the root),
    ``files`` has one entry per input path in input order; ``captured_at_ms`` is ms since
    the epoch."""

    seq: int
    captured_at_ms: int
    algorithm: FileHashAlgorithm
    snapshot: dict[str, str]
    missing: list[str]
    files: list[FileHashSnapshotEntry]


AffectedReason = Literal["direct", "dependent", "global_file", "lockfile", "unmapped", "fallback"]
"""Why a target is affected (docs/design.md §4)."""


@dataclass(kw_only=True)
class AffectedTarget(WireModel):
    """One affected target (reference §2.8): ``files`` are the changed paths that reach it;
    ``via`` (for ``dependent``) the ids or file paths from the changed one to the one it
    depends on. Parser-specific keys (``root``, ``target_names``, ``manifest_path``, …) are
    kept in :meth:`wire_extra`."""

    id: str
    label: str
    kind: str
    source: str
    files: list[str]
    reason: AffectedReason
    via: list[str] | None = None
    adapter_id: str | None = None


@dataclass(kw_only=True)
class AdapterFact(WireModel):
    """One adapter's fact (reference §2.8): ``error`` when its command could not run or its
    stdout did not parse; ``workspace_changed`` lists lockfiles the command changed."""

    id: str
    parser_id: str
    status: str
    ok: bool
    target_count: int
    exit: int | None = None
    error: str | None = None
    workspace_changed: list[str] | None = None


@dataclass(kw_only=True)
class AffectedFallback(WireModel):
    """The code-index fallback (reference §1.3.2, transitive here)."""

    enabled: bool
    available: bool
    targets: list[AffectedTarget]
    errors: list[str] | None = None


@dataclass(kw_only=True)
class AffectedTargets(WireModel):
    """The affected-targets fact (reference §1.3, §2.8, docs/design.md §4): ``run_all`` is true
    when a global file, an unmapped file or an un-narrowed lockfile changed."""

    changed_paths: list[str]
    targets: list[AffectedTarget]
    adapters: list[AdapterFact]
    fallback: AffectedFallback
    unmapped: list[str]
    global_files: list[str]
    lockfiles: list[str]
    run_all: bool
    run_all_reasons: list[str]


@dataclass(kw_only=True)
class CodeIndexChange(WireModel):
    """One version-log entry: ``hash`` is the FNV-1a 64 decimal of the new bytes (``None``
    when deleted)."""

    seq: int
    path: str
    change: Literal["added", "modified", "deleted"]
    hash: str | None


@dataclass(kw_only=True)
class GoImportsFact(WireModel):
    """How the code index read Go imports: ``source`` ``go_list`` (``go list -json``,
    frozen and offline; ``packages`` listed in ``duration_ms``), ``import_lines`` (``reason``
    says why go list was not used) or ``none`` (no Go module). ``changed_workspace``: module
    files a go list run changed; ``frozen``: go list would have changed go.mod/go.sum."""

    source: Literal["go_list", "import_lines", "none"]
    reason: str | None = None
    modules: list[str]
    packages: int
    duration_ms: float | None = None
    changed_workspace: list[str] | None = None
    frozen: str | None = None


@dataclass(kw_only=True)
class CodeIndexChanges(WireModel):
    """Version-log entries after ``since``; ``complete`` is false when some were dropped;
    ``go_imports`` says how Go imports were read."""

    current_seq: int
    since: int
    complete: bool
    changes: list[CodeIndexChange]
    files: int
    built: bool
    go_imports: GoImportsFact


def _options(options: Mapping[str, Any] | None, params: dict[str, Any]) -> dict[str, Any]:
    if options is not None:
        params["options"] = to_wire(options)
    return params


class FactsMethods:
    """The ``facts.*`` methods of :class:`~turngate.Client` (a mixin: it needs the client's
    ``_send``). Each raises what :meth:`Client.call` raises: :class:`InvalidParams` naming
    the field, :class:`RemoteError` with code ``invalid_regex`` (a normalization pattern
    Rust's ``regex`` would reject; ``path`` under ``options``) or ``diagnostic_parse_error``
    (``path`` ``"text"``)."""

    if TYPE_CHECKING:
        _send: Callable[..., Any]

    @bridge_method("facts.snapshot_staleness")
    def snapshot_staleness(
        self,
        bound_snapshot: Mapping[str, Any] | None,
        current_hashes: Mapping[str, Any] | None,
        *,
        timeout: float | None = None,
    ) -> SnapshotStaleness:
        """Staleness of a bound snapshot (reference §1.2).

        Input: the bound ``{path: hash}`` map (or a file-hash snapshot as a mapping, e.g.
        ``snap.to_wire()``; ``None`` = no binding) and the current hashes (same forms;
        ``None`` = unavailable). Output: ``unbound`` for no binding, ``bound_stale`` when a
        bound path's current hash differs or is absent, else ``bound_fresh``.
        """
        params = {"bound_snapshot": to_wire(bound_snapshot), "current_hashes": to_wire(current_hashes)}
        return SnapshotStaleness.from_wire(self._send("facts.snapshot_staleness", params, timeout=timeout))

    @bridge_method("facts.diagnostic_classify")
    def diagnostic_classify(
        self,
        envelope: Mapping[str, Any] | None,
        current_hashes: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> DiagnosticClassification:
        """Classify a diagnostic envelope ``{rung, at, snapshot, rowId?}`` against the current
        ``{path: hash}`` map (reference §1.5; ``None`` sends nothing: ``{}``). Bound only with
        a non-blank string ``rung``, a string or number ``at`` and a non-empty ``snapshot``;
        hashes compare as typed JSON (``"1"`` differs from ``1``)."""
        params: dict[str, Any] = {"envelope": to_wire(envelope)}
        if current_hashes is not None:
            params["current_hashes"] = to_wire(current_hashes)
        return DiagnosticClassification.from_wire(self._send("facts.diagnostic_classify", params, timeout=timeout))

    @bridge_method("facts.diagnostic_delta")
    def diagnostic_delta(
        self,
        previous: Any,
        current: Any,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> DiagnosticDelta:
        """Compare two diagnostic results as normalized signature sets (reference §1.11, §3.7).

        Input: each side is ``None``, a string, a list of strings or diagnostic mappings, a
        check result (``{ok|success|exit_code|status, …}``) or ``{diagnostics: […]}`` such as
        a :class:`ParsedDiagnostics`; ``options`` holds the normalization knobs
        (``lowercase``, ``strip_locations``, ``include_path``, ``max_chars``,
        ``replacements``, ``strip_patterns``, ``ignore_patterns``, …, a ``diagnostic_delta``
        config, a profile ``row``). Output: the status, progress credit and decision-table
        reason with the removed / added / persisted signatures.
        """
        params = _options(options, {"previous": to_wire(previous), "current": to_wire(current)})
        return DiagnosticDelta.from_wire(self._send("facts.diagnostic_delta", params, timeout=timeout))

    @bridge_method("facts.gate_input")
    def gate_input(
        self,
        previous: Any,
        current: Any,
        current_hashes: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> GateInput:
        """The gate-facing reducer over a previous and a current diagnostic (reference §1.12).

        Each side is classified against ``current_hashes`` (``None`` = unavailable: each side
        keeps its own gate status), so a stale or unbound previous is never a baseline; the
        delta then decides. A green clears a gate-bearing failure only at the same or a higher
        rung: a lower-rung green is ``advisory`` with reason ``lower_rung_green`` (docs/design.md
        §4). ``options`` as in :meth:`diagnostic_delta`.
        """
        params: dict[str, Any] = {"previous": to_wire(previous), "current": to_wire(current)}
        if current_hashes is not None:
            params["current_hashes"] = to_wire(current_hashes)
        return GateInput.from_wire(self._send("facts.gate_input", _options(options, params), timeout=timeout))

    @bridge_method("facts.parse_diagnostics")
    def parse_diagnostics(
        self, format: DiagnosticFormat, text: str, *, timeout: float | None = None
    ) -> ParsedDiagnostics:
        """Parse one tool's raw output into diagnostics plus the input it could not read.

        ``format``: ``tsc`` (``tsc --pretty false``), ``eslint`` (``-f json``), ``sarif``
        (2.1.0), ``cargo`` (``--message-format=json``), ``ruff`` (``--output-format=json``),
        ``pyright`` (``--outputjson``), ``go_vet`` (``go vet -json``), ``rdjson`` /
        ``rdjsonl`` (reviewdog). Raises :class:`RemoteError` ``diagnostic_parse_error``
        (``path`` ``"text"``) when a JSON-document format's text is not JSON or not the
        expected shape at its root.
        """
        params = {"format": format, "text": text}
        return ParsedDiagnostics.from_wire(self._send("facts.parse_diagnostics", params, timeout=timeout))

    @bridge_method("facts.file_hash_snapshot")
    def file_hash_snapshot(
        self,
        root: str | os.PathLike[str],
        paths: Sequence[str],
        algorithm: FileHashAlgorithm = "fnv1a64",
        *,
        timeout: float | None = None,
    ) -> FileHashSnapshot:
        """Hash the current bytes of ``paths`` (1 to 4096, relative to ``root`` or absolute)
        under the workspace ``root`` (reference §1.1, §3.1): ``fnv1a64`` gives Harn's decimal
        FNV-1a 64, ``sha256`` lowercase hex. Paths outside the root (also through a
        symlink), missing or unreadable files are listed in ``missing`` and never read.
        Stdio bridge only (under Pyodide: :class:`NotSupported`). Raises
        :class:`InvalidParams` with ``path`` ``root``, ``paths`` or ``paths.N``."""
        params = {"root": os.fspath(root), "paths": wire_list(paths, "paths"), "algorithm": algorithm}
        return FileHashSnapshot.from_wire(self._send("facts.file_hash_snapshot", params, timeout=timeout))

    @bridge_method("facts.affected_from_outputs")
    def affected_from_outputs(
        self,
        changed_paths: Sequence[str],
        adapters: Sequence[Mapping[str, Any]] = (),
        root: str | None = None,
        import_graph: Mapping[str, Any] | None = None,
        fallback: bool = True,
        include_fallback: bool = False,
        global_files: Sequence[str] | None = None,
        lockfiles: Mapping[str, Mapping[str, str | None]] | None = None,
        *,
        timeout: float | None = None,
    ) -> AffectedTargets:
        """The affected-targets fact from adapter outputs already at hand (reference §1.3;
        pure: runs nothing). ``adapters``: ``{id, parser_id, result: {status, ok,
        exit_code, timed_out, stdout}}`` or ``{id, parser_id, error}``; ``import_graph``:
        ``{importers: {path: [paths]}, sources: [paths]}`` for the fallback; ``lockfiles``:
        ``{path: {before, after}}`` texts. Also in-process under Pyodide."""
        params: dict[str, Any] = {
            "changed_paths": wire_list(changed_paths, "changed_paths"),
            "adapters": to_wire(list(adapters)),
            "import_graph": None if import_graph is None else to_wire(import_graph),
            "fallback": fallback,
            "include_fallback": include_fallback,
        }
        if root is not None:
            params["root"] = root
        if global_files is not None:
            params["global_files"] = wire_list(global_files, "global_files")
        if lockfiles is not None:
            params["lockfiles"] = to_wire(lockfiles)
        return AffectedTargets.from_wire(self._send("facts.affected_from_outputs", params, timeout=timeout))

    @bridge_method("facts.affected_targets")
    def affected_targets(
        self,
        root: str | os.PathLike[str],
        changed_paths: Sequence[str],
        adapters: Sequence[Mapping[str, Any]] | None = None,
        fallback: bool = True,
        include_fallback: bool = False,
        fail_on_adapter_error: bool = False,
        global_files: Sequence[str] | None = None,
        template_context: Mapping[str, Any] | None = None,
        command_options: Mapping[str, Any] | None = None,
        use_code_index: bool = True,
        state_dir: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> AffectedTargets:
        """Which targets the changed paths touch, and why (reference §1.3; docs/design.md §4).

        ``adapters``: rows ``{id, parser_id, spec, ...}`` run in ``root`` (``None``: the
        rows the bridge detects: pnpm, cargo, go). Every target has a ``reason``; unmapped
        changed files are listed, never dropped. A failing adapter command is an
        :class:`AdapterFact` with ``error``, never an exception. Stdio bridge only. Raises
        :class:`InvalidParams` naming the field."""
        params: dict[str, Any] = {
            "root": os.fspath(root),
            "changed_paths": wire_list(changed_paths, "changed_paths"),
            "adapters": None if adapters is None else to_wire(list(adapters)),
            "fallback": fallback,
            "include_fallback": include_fallback,
            "fail_on_adapter_error": fail_on_adapter_error,
            "use_code_index": use_code_index,
        }
        if global_files is not None:
            params["global_files"] = wire_list(global_files, "global_files")
        if template_context is not None:
            params["template_context"] = to_wire(template_context)
        if command_options is not None:
            params["command_options"] = to_wire(command_options)
        if state_dir is not None:
            params["state_dir"] = os.fspath(state_dir)
        return AffectedTargets.from_wire(self._send("facts.affected_targets", params, timeout=timeout))

    @bridge_method("facts.code_index_changes_since")
    def code_index_changes_since(
        self,
        root: str | os.PathLike[str],
        since: int = 0,
        state_dir: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> CodeIndexChanges:
        """The code index's version-log entries after ``since`` (the index in ``state_dir``,
        default ``<root>/.turngate``, is brought up to date first). Stdio bridge only."""
        params: dict[str, Any] = {"root": os.fspath(root), "since": since}
        if state_dir is not None:
            params["state_dir"] = os.fspath(state_dir)
        return CodeIndexChanges.from_wire(self._send("facts.code_index_changes_since", params, timeout=timeout))

    @bridge_method("facts.code_index_file_hash_snapshot")
    def code_index_file_hash_snapshot(
        self,
        root: str | os.PathLike[str],
        paths: Sequence[str],
        algorithm: FileHashAlgorithm = "fnv1a64",
        state_dir: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> FileHashSnapshot:
        """:meth:`file_hash_snapshot` through the code index (reference §1.1): ``seq``,
        ``known``, ``indexed_hash``, ``last_edit_seq`` filled, and ``hash_source``
        ``indexed`` for files whose size and mtime match the index. Stdio bridge only."""
        params: dict[str, Any] = {"root": os.fspath(root), "paths": wire_list(paths, "paths"), "algorithm": algorithm}
        if state_dir is not None:
            params["state_dir"] = os.fspath(state_dir)
        return FileHashSnapshot.from_wire(
            self._send("facts.code_index_file_hash_snapshot", params, timeout=timeout)
        )


__all__ = [
    "AdapterFact",
    "AffectedFallback",
    "AffectedReason",
    "AffectedTarget",
    "AffectedTargets",
    "CodeIndexChange",
    "CodeIndexChanges",
    "BindingStatus",
    "DeltaReason",
    "DeltaSide",
    "DeltaStatus",
    "DiagnosticClassification",
    "DiagnosticDelta",
    "DiagnosticFormat",
    "DiagnosticNormalization",
    "DiagnosticSeverity",
    "FactsMethods",
    "FileHashAlgorithm",
    "FileHashSnapshot",
    "FileHashSnapshotEntry",
    "GateInput",
    "GateSide",
    "ParsedDiagnostic",
    "ParsedDiagnostics",
    "RungComparison",
    "RungOutcome",
    "SnapshotStaleness",
    "UnparsedInput",
]
