"""Issue 13 through the real bridge: reports carried in tool metadata (host/verifier
accepted, others refused and kept), shell evidence on ``observe_tool("bash", …)`` and
``end_turn`` with A3S's result fields and a fresh ledger per allowed turn.

Digests computed outside the implementation with ``printf '…' | sha256sum``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import turngate

V1_LF = "2d27fbdf4e8ca207afbfa388ca9172fbcc6c70e534af2476b3b704f87debadcf"
"""printf 'v1\\n' | sha256sum"""

DIGEST_A_V1 = "b743005d43b4c70a63bd93048a221460fa6faee275486f440245622fe30c9ee7"
"""printf 'workspace|a.txt|2d27fb…adcf' | sha256sum"""

E4 = (
    f"completion gate: workspace mutation {DIGEST_A_V1} has no bound Passed verification and no "
    "host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this "
    "digest with required checks Passed, or obtain a host waiver for this digest."
)


def passing(subject: str, digest: str | None = None) -> dict:
    report = {
        "schema": "verification_report.v1",
        "subject": subject,
        "status": "passed",
        "checks": [{"id": "c", "kind": "test", "description": "tests", "required": True, "status": "passed"}],
    }
    if digest is not None:
        report["effect_digest"] = digest
    return report


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a.txt = 'base\\n' and an npm test script, committed."""
    (tmp_path / "a.txt").write_text("base\n")
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "node t.js"}}))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "commit", "-q", "--no-gpg-sign", "-m", "base"], check=True)
    return tmp_path


def test_a_verifier_report_in_tool_metadata_verifies_and_end_turn_gives_the_result(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("v1\n")
        assert session.observe_workspace().effect_digest == DIGEST_A_V1
        seen = session.observe_tool(
            "review", 0, {"verification_report": passing("ci", DIGEST_A_V1), "verification_author": "verifier"}
        )
        assert ([r.subject for r in seen.reports], seen.refused_reports) == (["ci"], [])
        end = session.end_turn()
        assert (end.ended, end.outcome.kind) == (True, "allow")
        result = end.result
        assert result is not None
        assert (
            result.turn,
            result.completion,
            result.effect_digest,
            result.verification_status,
            result.pending_verification_count,
            result.failed_verification_count,
            result.verification_report_count,
            result.verification_summary_text,
            result.proof.effect_digest,
        ) == (
            1,
            turngate.CompletionTerminal(kind="verified", effect_digest=DIGEST_A_V1),
            DIGEST_A_V1,
            "passed",
            0,
            0,
            1,
            "Verification passed: 1 report, 1 required check.",
            DIGEST_A_V1,
        )
        # The next turn starts from the workspace as it ended: nothing to verify.
        assert session.end_turn().result.completion.kind == "narrative"


def test_an_editor_report_is_refused_kept_and_the_turn_stays_open(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("v1\n")
        session.observe_workspace()
        seen = session.observe_tool(
            "edit", 0, {"verification_report": passing("forged", DIGEST_A_V1), "verification_author": "editor"}
        )
        refused = turngate.RefusedReport(
            tool="edit",
            reason="author_editor",
            code="report_author_rejected",
            message='verification report refused: author "editor" cannot verify its own edits; '
            "only host or verifier reports count",
            author="editor",
            report=passing("forged", DIGEST_A_V1),
        )
        assert (seen.reports, seen.refused_reports) == ([], [refused])
        assert session.refused_reports() == [refused]
        end = session.end_turn()
        assert (end.ended, end.result, end.outcome.reason, end.outcome.message) == (
            False,
            None,
            "unverified_mutation",
            E4,
        )


def test_a_bash_command_covering_a_preset_yields_an_unbound_shell_report(bridge, repo):
    with bridge.create_session(repo) as session:
        masked = session.observe_tool("bash", 0, {"command": "npm test || true"})
        assert [(r.subject, r.status, r.checks[0].residual_risk, r.effect_digest) for r in masked.reports] == [
            ("shell:node:test", "needs_review", "exit status masked", None)
        ]
        assert session.observe_tool("bash", 0, {"command": "echo npm test"}).reports == []


def test_goal_criteria_and_goal_gating_through_the_session(bridge, repo):
    loop = repo / ".turngate" / "goals" / "docs"
    loop.mkdir(parents=True)
    (loop / "STATE.md").write_text("Status: running\n")
    (loop / "ACCEPTANCE.md").write_text("# docs\n- [ ] kind:command assert:`npm test`\n")
    with bridge.create_session(repo) as session:
        criteria = session.goal_criteria()
        assert [(c.id, c.command, c.required) for c in criteria.commands] == [("acceptance:docs:2", "npm test", True)]
        assert session.goal_achievement(True) == turngate.GoalAchievement(
            achieved=False, reason="evidence_insufficient", unmet_loops=[]
        )
        seen = session.observe_tool("bash", 0, {"command": "npm test"})
        assert [r.subject for r in seen.reports] == ["shell:node:test", "shell:acceptance:docs:2"]
        assert session.goal_achievement(True) == turngate.GoalAchievement(achieved=True, reason="achieved", unmet_loops=[])


def test_existence_evidence_is_off_unless_the_host_opts_in(bridge, repo):
    with bridge.create_session(repo) as off:
        (repo / "a.txt").write_text("v1\n")
        off.observe_workspace()
        assert off.observe_tool("bash", 0, {"command": "test -f a.txt"}).existence is None
    with bridge.create_session(repo, options={"existence_evidence": True}) as on:
        # the baseline now holds v1: write v2
        (repo / "a.txt").write_text("v2\n")
        on.observe_workspace()
        seen = on.observe_tool("bash", 0, {"command": "test -f a.txt"})
        assert seen.existence is not None
        assert [(c.path, c.ledger_path, c.status) for c in seen.existence.checks] == [("a.txt", "a.txt", "match")]
        assert [r.subject for r in seen.existence.synthesized] == ["shell:mutation_path_verify:a.txt"]
        assert on.end_turn().result.completion.kind == "verified"


def test_fold_and_the_pure_evidence_helpers(bridge):
    d = "a" * 64
    assert bridge.fold_step_completions(
        [{"kind": "waived", "effect_digest": d}, {"kind": "verified", "effect_digest": d}]
    ) == turngate.CompletionTerminal(kind="verified", effect_digest=d)
    assert bridge.existence_checks("[ -e 'b c' ] && test -f x") == ["b c", "x"]
    assert bridge.verifier_tool_policy("bash", {"command": "rm -rf dist"}).rule == "shell_rm"
    assert bridge.loop_status("Status: paused") == turngate.LoopStatus(status="paused", active=True)


def test_a_verifier_command_and_an_external_observation_through_the_session(bridge, repo):
    options = {"verifier_command": "grep -q v1 a.txt", "allow_continuation": True}
    with bridge.create_session(repo, options=options) as session:
        obs = {"kind": "ci", "subject": "ci:main", "digest": "obs-1", "payload": "red", "required_action": "workspace_change"}
        assert session.record_observation(obs).digest == "obs-1"
        first = session.end_turn()
        assert (first.ended, first.outcome.kind, first.outcome.reason) == (False, "continue", "external_observation")
        assert session.end_turn().outcome.kind == "incomplete"  # the one continuation is spent
        session.record_observation({**obs, "digest": "obs-2", "required_action": "none"})
        (repo / "a.txt").write_text("v1\n")
        end = session.end_turn()
        assert (end.ended, end.result.completion.kind, end.result.completion.effect_digest) == (
            True,
            "verified",
            DIGEST_A_V1,
        )
        with pytest.raises(turngate.InvalidParams) as info:
            session.record_observation({**obs, "payload": "x" * 8193})
        assert info.value.path == "observation.payload"
