"""Protocol types of turngate as Python dataclasses (wire keys = field names, snake_case).

Each class mirrors one JSON Schema of ``packages/bridge/schema/protocol.json``;
``tests/test_parity.py`` fails when a field's name, optionality or default drifts from it.
Rules shared with every language (docs/design.md §6, reference a3s-completion-gate.md §6):

* ``required`` defaults to ``False`` (checks and commands) and ``expect_exit`` to ``0``;
* a field that is ``None`` is absent on the wire; every other field is sent;
* ``effect_digest`` is a field of :class:`VerificationReport` and round-trips.

All classes are keyword-only dataclasses: ``VerificationCheck(id="t", kind="test", ...)``.
Build one from bridge JSON with ``Cls.from_wire(obj)``; turn it into JSON with
``obj.to_wire()``. Every API that takes one of these also accepts a plain dict with the same
keys (it is sent as given and validated by the bridge).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._wire import WireModel

VerificationStatus = Literal["passed", "failed", "needs_review", "skipped"]
"""Status of a check, report or summary (reference §1.1)."""

TerminalKind = Literal["narrative", "verified", "waived", "distinct"]
"""How a turn completed (reference §1.9)."""

GateKind = Literal["allow", "continue", "incomplete"]
"""The gate's decision (reference §1.10)."""

GateReason = Literal[
    "external_observation",
    "open_children",
    "observation_incomplete",
    "unverified_mutation",
    "capped",
    "escalated",
    "isolation_unavailable",
    "unverified_carry_over",
]
"""Why the gate did not allow the turn to end (docs/design.md §3)."""

RequiredAction = Literal["none", "workspace_change", "address"]
"""What an external observation asks of the turn (reference §1.14)."""

VERIFICATION_REPORT_SCHEMA: Final = "verification_report.v1"
"""Schema id of every report turngate writes (docs/design.md §3)."""

COMPLETION_WAIVER_SCHEMA: Final = "completion_waiver.v1"
"""Schema id of a completion waiver (reference §1.11)."""


@dataclass(kw_only=True)
class CheckTestCounts(WireModel):
    """A check's test counts from its structured results (issue #16)."""

    passed: int
    failed: int
    skipped: int
    errored: int


@dataclass(kw_only=True)
class VerificationCheck(WireModel):
    """One verification check (reference §1.2). ``required`` defaults to ``False``;
    ``residual_risk`` is a check-level note that does not change the report status."""

    id: str
    kind: str
    description: str
    status: VerificationStatus
    required: bool = False
    suggested_tools: list[str] | None = None
    evidence_uris: list[str] | None = None
    residual_risk: str | None = None
    tests: CheckTestCounts | None = None
    failing_tests: list[str] | None = None
    #: Why a failed check did not pass, when turngate's runner ran it (issue 19).
    failure_class: Literal["assertion", "timeout", "cancelled", "signal", "infrastructure"] | None = None


@dataclass(kw_only=True)
class VerificationReport(WireModel):
    """``verification_report.v1`` (reference §1.3). ``effect_digest`` is the effect digest
    this report may close; an unbound report (``None``) never passes the gate. ``status`` must
    equal the status derived from ``checks`` and ``residual_risks`` or the bridge rejects the
    report (``report_status_mismatch``)."""

    schema: Literal["verification_report.v1", "a3s.verification_report.v1"] = VERIFICATION_REPORT_SCHEMA
    subject: str
    status: VerificationStatus
    checks: list[VerificationCheck]
    residual_risks: list[str] | None = None
    effect_digest: str | None = None


@dataclass(kw_only=True)
class VerificationSummary(WireModel):
    """Summary over reports (reference §1.4); counts are non-negative integers and the
    subject lists are sorted and de-duplicated (absent when empty)."""

    status: VerificationStatus
    report_count: int
    required_check_count: int
    pending_required_check_count: int
    failed_check_count: int
    residual_risk_count: int
    pending_subjects: list[str] | None = None
    failed_subjects: list[str] | None = None


@dataclass(kw_only=True)
class TestResultsDeclaration(WireModel):
    """A command's structured test results (issue #16): ``format`` (``junit``, ``tap``, ``ctrf``,
    ``go_test_json``, ``jest_json``, ``pytest_reportlog``, ``libtest``); ``source`` ``file``
    (``None``: the command writes them to ``{results}`` / ``$TURNGATE_RESULTS``) or ``output``."""

    __test__ = False

    format: Literal["junit", "tap", "ctrf", "go_test_json", "jest_json", "pytest_reportlog", "libtest"]
    source: Literal["file", "output"] | None = None


@dataclass(kw_only=True)
class VerificationCommand(WireModel):
    """A verification command (reference §1.5), run with ``sh -c`` in the workspace root, or
    in ``cwd`` (a workspace-relative folder, no ``..`` segment; part of the check's identity).
    ``required`` defaults to ``False`` and ``expect_exit`` to ``0`` (as in every binding);
    ``timeout_ms`` is in milliseconds (absent = the runner's default)."""

    id: str
    kind: str
    description: str
    command: str
    required: bool = False
    timeout_ms: int | None = None
    expect_exit: int = 0
    cwd: str | None = None
    results: TestResultsDeclaration | None = None


@dataclass(kw_only=True)
class VerificationPreset(WireModel):
    """A named list of commands for one project kind (reference §1.6, §2.17)."""

    id: str
    project_kind: str
    description: str
    commands: list[VerificationCommand]


@dataclass(kw_only=True)
class CompletionWaiver(WireModel):
    """``completion_waiver.v1`` (reference §1.11): a host-confirmed waiver of one effect
    digest. Both fields must be non-blank; they are matched exactly (not trimmed)."""

    schema: Literal["completion_waiver.v1"] | None = None
    effect_digest: str
    reason: str


@dataclass(kw_only=True)
class MutationRecord(WireModel):
    """One mutation-ledger row (reference §1.8): tool, workspace-relative path and the
    lowercase hex SHA-256 content digest (``""`` when unknown)."""

    tool: str
    path: str
    content_digest: str


@dataclass(kw_only=True)
class OpenWorkspaceChild(WireModel):
    """A background writer sharing the workspace, not yet observed (reference §1.8)."""

    task_id: str
    porcelain: list[str] | None = None
    head: str | None = None
    nongit: bool | None = None


@dataclass(kw_only=True)
class LedgerState(WireModel):
    """The ledger that ``gate.decide`` judges: rows, open children, and whether the
    workspace observation was incomplete. Its digest is recomputed by the bridge."""

    records: list[MutationRecord]
    open_children: list[OpenWorkspaceChild] = field(default_factory=list)
    observation_incomplete: bool = False


@dataclass(kw_only=True)
class ExternalObservation(WireModel):
    """Evidence from outside the workspace (reference §1.14); ``payload`` is at most
    8192 UTF-8 bytes and ``digest`` is non-blank."""

    schema: Literal["external_observation.v1", "a3s.code.external-observation.v1"] = "external_observation.v1"
    kind: str
    subject: str
    digest: str
    payload: str
    source_revision: str | None = None
    required_action: RequiredAction


@dataclass(kw_only=True)
class CompletionTerminal(WireModel):
    """How a turn completed (reference §1.9): ``narrative`` and ``distinct`` carry no
    digest; ``verified`` and ``waived`` carry the ``effect_digest`` they closed."""

    kind: TerminalKind
    effect_digest: str | None = None


@dataclass(kw_only=True)
class GateOutcome(WireModel):
    """The gate's decision (reference §2.7, docs/design.md §3).

    ``kind == "allow"`` carries ``terminal``; ``continue`` and ``incomplete`` carry a typed
    ``reason``, the ``message`` (starting ``completion gate:``) and the data behind it:
    ``effect_digest``, ``paths``, ``digests``, ``subjects``, ``task_ids`` as applicable.
    """

    kind: GateKind
    terminal: CompletionTerminal | None = None
    reason: GateReason | None = None
    message: str | None = None
    effect_digest: str | None = None
    paths: list[str] | None = None
    digests: list[str] | None = None
    subjects: list[str] | None = None
    task_ids: list[str] | None = None


@dataclass(kw_only=True)
class CacheKey(WireModel):
    """The result of ``cache.key`` (issue 20 item 1): ``key`` is the lowercase hex SHA-256 of
    ``material``, the RFC 8785 canonical JSON of the key's inputs tagged with ``schema``
    (``"turngate.cache_key.v1"``)."""

    key: str
    material: str
    schema: Literal["turngate.cache_key.v1"]


@dataclass(kw_only=True)
class WaiverValidation(WireModel):
    """The verdict of ``waiver.validate``: ``valid`` with the normalised ``waiver``, or not
    valid with the offending field's dotted ``path`` (relative to the waiver) and a
    ``message``."""

    valid: bool
    waiver: CompletionWaiver | None = None
    path: str | None = None
    message: str | None = None


@dataclass(kw_only=True)
class TurnProofWorkspace(WireModel):
    """Where a turn happened (issue 10): the absolute workspace ``root`` and the git tree ids
    of the source scope at the baseline and at the decision (``None`` with ``tree_reason``
    saying why, e.g. not a git work tree)."""

    root: str
    baseline_tree: str | None
    final_tree: str | None
    tree_reason: str | None


@dataclass(kw_only=True)
class TurnProofEvidenceLog(WireModel):
    """One evidence log a bound report cites: its ``file:`` URL and the lowercase hex
    SHA-256 of its bytes."""

    uri: str
    sha256: str


@dataclass(kw_only=True)
class TurnProofLoop(WireModel):
    """The loop control of an agent hook's stop (issue 19): the ``harness``, the answer's
    ``action`` (allow/block) and ``verdict``, the ``attempt`` on this effect digest (0 when
    the gate allowed the first stop), ``max_attempts``, ``reason`` ``escalated`` / ``capped``
    (else ``None``) and whether the failing result was ``cached``."""

    harness: str
    action: Literal["allow", "block"]
    verdict: Literal["verified", "waived", "narrative", "distinct", "continue", "incomplete"]
    reason: Literal["escalated", "capped"] | None
    attempt: int
    max_attempts: int
    cached: bool


@dataclass(kw_only=True)
class Isolation(WireModel):
    """Where checks ran (docs/design.md §3b), as the session decided it, never a claim:
    ``mode`` ``clean-room`` (a copy of exactly the digest's source-scope bytes, in a
    bubblewrap sandbox) or ``in-place``; ``requested`` (``auto`` too); ``available`` is
    ``False`` when a required clean room could not start (then no check ran); ``reason`` says
    why the sandbox was not used."""

    mode: Literal["clean-room", "in-place"]
    requested: Literal["clean-room", "in-place", "auto"]
    available: bool
    reason: str | None = None


@dataclass(kw_only=True)
class TurnProof(WireModel):
    """``turn_proof.v1`` (docs/design.md §3 "Proof"): ledger rows and their effect digest, the
    reports bound to it, the waivers used, the terminal and outcome, tool versions and
    ISO-8601 timestamps. ``terminal`` is ``None`` in a proof an agent hook wrote for a stop
    the gate refused (issue 19: see ``outcome`` and ``loop``); such a proof never holds."""

    schema: Literal["turn_proof.v1"]
    effect_digest: str
    records: list[MutationRecord]
    reports: list[VerificationReport]
    waivers_used: list[CompletionWaiver]
    terminal: CompletionTerminal | None
    outcome: GateOutcome
    tool_versions: dict[str, str]
    started_at: str
    finished_at: str
    workspace: TurnProofWorkspace | None = None
    evidence_logs: list[TurnProofEvidenceLog] | None = None
    trust: Literal["unsandboxed", "sandboxed", "confined-writes", "confined"] | None = None
    isolation: Isolation | None = None
    loop: TurnProofLoop | None = None


@dataclass(kw_only=True)
class SignedProof(WireModel):
    """What ``Session.signed_proof`` returns: the DSSE ``envelope`` as JSON text (write it to
    a file as is), the signing key's ``keyid`` (SHA-256 of its DER public key) and the
    ``format``."""

    envelope: str
    keyid: str
    format: Literal["dsse", "in-toto"]


@dataclass(kw_only=True)
class ProofAuthentication(WireModel):
    """Whether a proof file is signed by the trusted key: ``authenticated`` (``keyid``),
    ``unauthenticated`` (``reason`` unsigned, foreign_key or no_trusted_key; ``keyids`` the
    envelope's) or ``invalid`` (``reason`` malformed_envelope, bad_signature,
    keyid_mismatch, unsupported_payload_type, malformed_payload, subject_mismatch)."""

    status: Literal["authenticated", "unauthenticated", "invalid"]
    reason: str | None
    keyid: str | None
    keyids: list[str] | None
    message: str


@dataclass(kw_only=True)
class ProofRowCheck(WireModel):
    """How one proof row compares with the disk now."""

    tool: str
    path: str
    recorded: str
    status: Literal["match", "mismatch", "not_checkable"]
    actual: str | None = None
    found: Literal["directory", "special", "unreadable"] | None = None


@dataclass(kw_only=True)
class EvidenceLogCheck(WireModel):
    """How one cited evidence log compares with the file on this machine (``unavailable``:
    not here, and not a failure)."""

    uri: str
    recorded: str
    status: Literal["match", "mismatch", "missing", "unavailable"]
    path: str | None = None
    actual: str | None = None
    problem: str | None = None


@dataclass(kw_only=True)
class ProofCommitMatch(WireModel):
    """Whether the proof's final git tree is the given commit's tree."""

    matches: bool
    commit_tree: str | None
    final_tree: str | None
    reason: str | None


@dataclass(kw_only=True)
class ProofVerification(WireModel):
    """What ``Client.verify_proof`` returns (as ``turngate proof verify --json``): ``ok``, the
    file's ``format``, its ``authentication``, the disk re-check (``recomputed_digest``,
    ``rows``), ``evidence_logs``, ``commit`` (when asked), ``problems`` and ``notes``."""

    ok: bool
    format: Literal["plain", "dsse", "in-toto", "unknown"]
    authentication: ProofAuthentication
    recomputed_digest: str | None
    rows: list[ProofRowCheck]
    evidence_logs: list[EvidenceLogCheck]
    commit: ProofCommitMatch | None
    problems: list[str]
    notes: list[str]


@dataclass(kw_only=True)
class ProgressEvent(WireModel):
    """A ``progress`` notification of ``session.verify_commands``: ``check_started`` before
    a check runs, ``check_finished`` after it with ``status``, ``exit_code`` (``None`` when
    the command could not run) and ``duration_ms`` (wall time in milliseconds).
    ``request_id`` is the JSON-RPC id of the call it belongs to; ``index`` is the check's
    0-based position in ``commands`` and ``total`` their number."""

    event: Literal["check_started", "check_finished"]
    request_id: str | int
    index: int
    total: int
    check_id: str
    command: str
    status: VerificationStatus | None = None
    exit_code: int | None = None
    duration_ms: float | None = None


@dataclass(kw_only=True)
class ToolObservation(WireModel):
    """What ``Session.observe_tool`` did: the ledger rows it ``added`` (possibly none), the
    ledger's ``effect_digest`` afterwards (``""`` while empty), the ``reports`` the result
    contributed (a host or verifier ``verification_report`` from its metadata, or the
    ``shell:<id>`` report of a ``bash`` command covering a preset) and the
    ``refused_reports`` it carried (issue 13)."""

    effect_digest: str
    added: list[MutationRecord]
    reports: list[VerificationReport]
    refused_reports: list[RefusedReport]
    existence: ExistenceEvidence | None = None


@dataclass(kw_only=True)
class ExistenceCheck(WireModel):
    """One existence check of a bash command: the ``path`` as written, the workspace
    ``ledger_path`` it names (``None`` outside the root) and what was found: ``match`` (on
    the ledger, bytes equal the recorded digest), ``mismatch``, ``no_recorded_content``,
    ``not_mutated`` or ``outside``."""

    path: str
    ledger_path: str | None
    status: Literal["match", "mismatch", "no_recorded_content", "not_mutated", "outside"]


@dataclass(kw_only=True)
class ExistenceEvidence(WireModel):
    """What the existence checks of one bash command did (sessions with
    ``existence_evidence``): the ``checks``, the turn reports now ``bound`` to the digest and
    the ``shell:mutation_path_verify:<path>`` reports ``synthesized``."""

    checks: list[ExistenceCheck]
    bound: list[VerificationReport]
    synthesized: list[VerificationReport]


@dataclass(kw_only=True)
class AcceptanceProblem(WireModel):
    """A criterion line of ACCEPTANCE.md that could not be read: its 1-based ``line``, the
    ``reason`` and a ``message``."""

    line: int
    reason: Literal["missing_assert", "unterminated_backtick", "empty_assert", "path_not_allowed"]
    message: str


@dataclass(kw_only=True)
class AcceptanceCriteria(WireModel):
    """The machine criteria of one ACCEPTANCE.md (reference §2.14): required ``commands``
    with ids ``acceptance:<loop_id>:<line>`` and the lines that could not be read."""

    loop_id: str
    commands: list[VerificationCommand]
    problems: list[AcceptanceProblem]


@dataclass(kw_only=True)
class LoopStatus(WireModel):
    """The status a goal loop's STATE.md names (``None`` when none) and whether it is
    active (``running``, ``retrying`` or ``paused``)."""

    status: str | None
    active: bool


@dataclass(kw_only=True)
class GoalLoop(WireModel):
    """One active goal loop of a workspace: its id, ACCEPTANCE.md ``path``, STATE.md
    ``status``, ``commands`` and ``problems``."""

    loop_id: str
    path: str
    status: str
    commands: list[VerificationCommand]
    problems: list[AcceptanceProblem]


@dataclass(kw_only=True)
class GoalReadProblem(WireModel):
    """A goal file that could not be read (its loop is skipped)."""

    path: str
    reason: Literal["unreadable", "not_utf8", "not_a_regular_file"]
    message: str


@dataclass(kw_only=True)
class GoalCriteria(WireModel):
    """The goal criteria of a session's turn: the active ``loops``, every loop's
    ``commands`` (shell-evidence candidates) and the files that were ``unreadable``."""

    loops: list[GoalLoop]
    commands: list[VerificationCommand]
    unreadable: list[GoalReadProblem]


@dataclass(kw_only=True)
class GoalAchievement(WireModel):
    """Goal-achievement gating (reference §2.15): ``achieved``, the ``reason``
    (``achieved``, ``not_claimed``, ``evidence_insufficient`` — the claim never suffices
    alone — or ``acceptance_unmet``) and the loops without a passing criterion."""

    achieved: bool
    reason: Literal["achieved", "not_claimed", "evidence_insufficient", "acceptance_unmet"]
    unmet_loops: list[str]


VerifierRule = Literal[
    "writer_tool",
    "shell_redirect",
    "shell_rm",
    "shell_mv",
    "shell_tee",
    "shell_changed_paths",
    "git_checkout",
    "git_branch_create",
    "git_stash",
    "git_worktree",
]
"""The rule of the verifier tool policy that refused a call (reference §2.18)."""


@dataclass(kw_only=True)
class VerifierPolicyDecision(WireModel):
    """The read-only verifier's tool policy (reference §2.18): ``allowed``, else the
    ``rule`` that refused the call and a ``message``."""

    allowed: bool
    rule: VerifierRule | None = None
    message: str | None = None


@dataclass(kw_only=True)
class VerifierRun(WireModel):
    """How the turn's read-only verifier run went (reference §2.18): ``status``
    (``reported``, ``no_report``, ``refused``, ``crashed``, ``timed_out`` or
    ``verifier_changed_workspace`` — its report is void), the ``effect_digest`` it ran for,
    a ``message``, the paths it changed and the ``report`` recorded for it."""

    status: Literal["reported", "no_report", "refused", "crashed", "timed_out", "verifier_changed_workspace"]
    effect_digest: str
    message: str | None = None
    changed_paths: list[str] | None = None
    report: VerificationReport | None = None


RefusedReason = Literal["author_missing", "author_editor", "author_unknown", "report_invalid", "status_mismatch"]
"""Why a report carried in tool metadata was refused."""


@dataclass(kw_only=True)
class RefusedReport(WireModel):
    """A report a tool result carried that was refused (kept for the host; never a gate
    input): the ``tool``, the ``reason``, the typed error's ``code`` and ``message``, the
    field ``path`` (``report_invalid`` only), the ``author`` as given (``None`` when absent
    or not a string) and the ``report`` as given."""

    tool: str
    reason: RefusedReason
    code: str
    message: str
    path: str | None = None
    author: str | None
    report: Any


@dataclass(kw_only=True)
class TurnResult(WireModel):
    """The result of an allowed turn (reference §1.17 ``AgentResult``): the ``completion``
    terminal, the ``effect_digest``, the summary ``verification_status``, the pending
    required / failed check counts and report count, the summary text and summary over the
    turn's own ``verification_reports``, its ``refused_reports`` and its ``proof``."""

    turn: int
    completion: CompletionTerminal
    effect_digest: str
    verification_status: VerificationStatus
    pending_verification_count: int
    failed_verification_count: int
    verification_report_count: int
    verification_summary_text: str
    verification_summary: VerificationSummary
    verification_reports: list[VerificationReport]
    refused_reports: list[RefusedReport]
    proof: TurnProof


@dataclass(kw_only=True)
class TurnEnd(WireModel):
    """What ``Session.end_turn`` did: ``ended`` (the gate allowed the turn and the next one
    began with a fresh ledger), the gate's ``outcome`` and, when ended, the ``result``."""

    ended: bool
    outcome: GateOutcome
    result: TurnResult | None = None


@dataclass(kw_only=True)
class WorkspaceChange(WireModel):
    """One changed path of a workspace delta; ``content_digest`` is the SHA-256 (lowercase
    hex) of the current bytes, or ``"deleted"``; ``scope`` says where the path lies: the
    source scope, or outside it (``ignored`` by git, at an ``output`` location, a ``harness``
    file of ``.git/`` or ``.turngate/``). Every scope is in the effect digest."""

    path: str
    change: Literal["added", "modified", "deleted"]
    content_digest: str
    scope: Literal["source", "ignored", "output", "harness"]


@dataclass(kw_only=True)
class WorkspaceObservation(WireModel):
    """What ``Session.observe_workspace`` saw against the session's baseline: the
    ``changes``, whether the observation was ``complete`` (``False`` when paths were
    ``unreadable``; the gate then answers ``observation_incomplete``), and the effect digest
    of the rebuilt ledger."""

    effect_digest: str
    changes: list[WorkspaceChange]
    complete: bool
    unreadable: list[str]


@dataclass(kw_only=True)
class ChildSettlement(WireModel):
    """What ``Session.settle_workspace_child`` did: ``settled`` (``False`` when no open
    background child had the task id), the task ids still ``open_children``, and the
    workspace re-read that followed — ``changes``, ``complete``, ``unreadable`` and the
    effect digest of the rebuilt ledger, as in :class:`WorkspaceObservation`."""

    settled: bool
    open_children: list[str]
    effect_digest: str
    changes: list[WorkspaceChange]
    complete: bool
    unreadable: list[str]


@dataclass(kw_only=True)
class CheckOutput(WireModel):
    """One ignored or output-location file the checks changed (issue 10): ``change`` is
    ``added``, ``modified`` or ``deleted``; ``scope`` is ``ignored`` or ``output``. Check
    outputs never unbind a report."""

    path: str
    change: Literal["added", "modified", "deleted"]
    scope: Literal["ignored", "output"]


@dataclass(kw_only=True)
class CheckOutputs(WireModel):
    """The check outputs of a binding: the first 100 ``paths`` by path and the exact ``count``."""

    count: int
    paths: list[CheckOutput]


@dataclass(kw_only=True)
class CheckRewrite(WireModel):
    """A lockfile a passing first run rewrote (``rewrite_paths``) and the id of the check
    after which it had first changed; the checks then ran once more."""

    path: str
    check_id: str


@dataclass(kw_only=True)
class SourceChange(WireModel):
    """How a pre-existing source file changed while the checks ran: ``modified``,
    ``deleted`` or ``metadata`` (same bytes, but size, mtime, ctime or inode changed)."""

    path: str
    change: Literal["modified", "deleted", "metadata"]


@dataclass(kw_only=True)
class ReportBinding(WireModel):
    """Whether a ``verify_commands`` report was bound to the effect digest (docs/design.md §3a):
    ``bound=True`` with ``effect_digest``; or ``bound=False`` with a ``reason`` —
    ``workspace_changed_during_check`` (with ``changed_paths``, ``unreadable``, and
    ``changes`` / ``created`` when there are any), ``observation_incomplete``,
    ``isolation_unavailable`` (clean-room checks required, the sandbox cannot start: no
    check ran), ``no_effect`` or ``not_requested``. In the clean room a bound binding may list
    ``changed_after``: source paths the workspace changed while the checks ran. ``hint`` says what to do (unbound reasons
    ``workspace_changed_during_check`` and ``observation_incomplete``); ``check_outputs``
    lists ignored and output-location files the checks changed (never unbinding);
    ``rewrites`` the lockfiles a ``rewrite_paths`` re-run adopted."""

    bound: bool
    effect_digest: str | None = None
    reason: (
        Literal[
            "workspace_changed_during_check",
            "observation_incomplete",
            "isolation_unavailable",
            "no_effect",
            "not_requested",
        ]
        | None
    ) = None
    changed_paths: list[str] | None = None
    unreadable: list[str] | None = None
    hint: str | None = None
    changes: list[SourceChange] | None = None
    created: list[str] | None = None
    check_outputs: CheckOutputs | None = None
    rewrites: list[CheckRewrite] | None = None
    changed_after: list[str] | None = None


@dataclass(kw_only=True)
class CommandRun(WireModel):
    """One verification command as it ran. ``exit_code`` is 128 + the signal number when it
    was killed and ``None`` when it never ran; times are milliseconds, ``total_bytes`` is
    the size of the whole output; ``output`` keeps the first 64 KiB and the last 36 KiB with
    a notice between; ``log_uri`` points at the full log when it was written;
    ``failure_digest`` is, for a check that did not pass, its failing tests each with the
    first lines of its failure, then the output's last lines (what ``turngate run`` prints),
    and empty when it passed."""

    id: str
    status: VerificationStatus
    exit_code: int | None
    signal: str | None
    timed_out: bool
    aborted: bool
    timeout_ms: float
    duration_ms: float
    output: str
    total_bytes: int
    truncated: bool
    log_uri: str | None = None
    spawn_error: str | None = None
    failure_digest: list[str]


@dataclass(kw_only=True)
class VerifyResult(WireModel):
    """What ``Session.verify_commands`` returns: the recorded ``report``, its ``binding``
    and one :class:`CommandRun` per command, in order."""

    report: VerificationReport
    binding: ReportBinding
    runs: list[CommandRun]
    isolation: Isolation
