"""The view model of a turn, ``turngate.turn_view.v1`` (issue 21), as dataclasses.

What ``turngate show`` prints and its HTML page renders: the verdict and digest, the checks
with their output, the files with their diffs against the baseline tree. Built by the
bridge's ``report.turn_view`` (:meth:`turngate.Client.turn_view`) from a turn's facts (a
:class:`turngate.TurnProof` or the same fields) and what the host adds (check runs, observer
changes, diffs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._wire import WireModel
from .types import CheckTestCounts, CompletionWaiver, VerificationStatus

TurnViewChange = Literal["added", "modified", "deleted", "ignored", "output", "harness", "environment", "changed"]
"""What a turn did to one path, as the view names it."""


@dataclass(kw_only=True)
class TurnViewDiff(WireModel):
    """One file's diff against the baseline, by ``kind``: ``text`` (``unified``, the
    ``additions``/``deletions`` line counts, ``truncated`` when cut at the view's limit),
    ``binary`` and ``too_large`` (``old_bytes``/``new_bytes``, ``limit_bytes`` in bytes),
    ``unavailable`` (``reason``)."""

    kind: Literal["text", "binary", "too_large", "unavailable"]
    unified: str | None = None
    additions: int | None = None
    deletions: int | None = None
    truncated: bool | None = None
    old_bytes: int | None = None
    new_bytes: int | None = None
    limit_bytes: int | None = None
    reason: str | None = None


@dataclass(kw_only=True)
class TurnViewFile(WireModel):
    """A path the turn changed, its kind and scope, the ledger row's tool and content
    digest, and its diff."""

    path: str
    change: TurnViewChange
    scope: Literal["source", "ignored", "output", "harness", "environment"]
    tool: str
    content_digest: str
    diff: TurnViewDiff


@dataclass(kw_only=True)
class TurnViewLog(WireModel):
    """A check's log: its local path, ``file:`` URL and SHA-256 (each ``None`` when unknown)."""

    path: str | None
    uri: str | None
    sha256: str | None


@dataclass(kw_only=True)
class TurnViewCheck(WireModel):
    """One check of the turn: the report's check joined with how it ran (``duration_ms`` in
    ms; ``None`` for a view built from a proof alone)."""

    id: str
    kind: str
    description: str
    command: str | None
    status: VerificationStatus
    required: bool = False
    failure_class: str | None
    duration_ms: float | None
    exit_code: int | None
    residual_risk: str | None
    hint: str | None
    tests: CheckTestCounts | None
    failing_tests: list[str]
    #: What ``turngate run`` printed under a check that did not pass (failing tests with
    #: their failures, then the tail); empty when the view has no run or the check passed.
    failure_digest: list[str] = field(default_factory=list)
    output_tail: list[str]
    output_lines: int
    log: TurnViewLog | None


@dataclass(kw_only=True)
class TurnViewCheckCounts(WireModel):
    """Checks by status."""

    passed: int
    failed: int
    needs_review: int
    skipped: int


@dataclass(kw_only=True)
class TurnViewFileCounts(WireModel):
    """Files by kind."""

    added: int
    modified: int
    deleted: int
    outside_scope: int
    environment: int


@dataclass(kw_only=True)
class TurnViewCounts(WireModel):
    """The summary's counts: checks, files, and the diffs' added and deleted lines."""

    checks: TurnViewCheckCounts
    files: TurnViewFileCounts
    additions: int
    deletions: int


@dataclass(kw_only=True)
class TurnViewDiffs(WireModel):
    """Whether diffs are available (else ``reason``), and the two trees they compare."""

    available: bool
    reason: str | None
    baseline_tree: str | None
    final_tree: str | None


@dataclass(kw_only=True)
class TurnViewAffectedTarget(WireModel):
    """An affected target, passed through from the facts."""

    target: str
    reason: str | None = None
    via: list[str] | None = None


@dataclass(kw_only=True)
class TurnViewOutputs(WireModel):
    """Files the configuration's ``"outputs"`` named that the checks wrote in the clean room,
    copied to ``dir`` outside the workspace; ``paths`` are relative to ``dir``."""

    dir: str
    paths: list[str]


@dataclass(kw_only=True)
class TurnView(WireModel):
    """``turngate.turn_view.v1`` (issue 21)."""

    schema: Literal["turngate.turn_view.v1"]
    source: Literal["proof", "result"]
    verdict: Literal["verified", "waived", "narrative", "distinct", "incomplete", "continue"]
    effect_digest: str
    reason: str | None
    message: str | None
    root: str | None
    trust: Literal["unsandboxed", "sandboxed", "confined-writes", "confined"] | None
    started_at: str | None
    finished_at: str | None
    counts: TurnViewCounts
    checks: list[TurnViewCheck]
    files: list[TurnViewFile]
    diffs: TurnViewDiffs
    waivers: list[CompletionWaiver]
    attempts: int | None
    affected_targets: list[TurnViewAffectedTarget] | None
    hud: str | None
    #: The clean room's copied outputs (files the configuration's ``"outputs"`` named);
    #: ``None`` when none or not known (a view from a proof).
    outputs: TurnViewOutputs | None
