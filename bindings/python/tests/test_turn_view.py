"""The view model of a turn through the Python binding on the real bridge (issue 21):
``Client.turn_view`` of a real session's proof gives the verdict, the bound check and the
file with the diff the host computed; run details and observer changes join the view; a bad
field is ``InvalidParams`` naming it."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

import turngate


def sha256(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


@pytest.fixture
def client(tmp_path: Path):
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    with turngate.Client(env=env) as c:
        yield c


def test_the_view_of_a_real_proof(client: turngate.Client, tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("old\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "base")
    session = client.create_session(root)
    try:
        (root / "a.txt").write_text("new\n")
        session.observe_workspace()
        check = turngate.VerificationCommand(id="t", kind="test", description="grep", command="grep -qx new a.txt", required=True)
        session.verify_commands("host", [check], bind=True)
        assert session.decide().terminal.kind == "verified"
        proof = session.proof()
    finally:
        session.close()
    digest = sha256(f"workspace|a.txt|{sha256('new' + chr(10))}")
    unified = "@@ -1 +1 @@\n-old\n+new\n"
    view = client.turn_view(
        proof,
        diffs=[{"path": "a.txt", "change": "modified", "diff": {"kind": "text", "unified": unified, "additions": 1, "deletions": 1, "truncated": False}}],
    )
    assert isinstance(view, turngate.TurnView)
    assert (view.schema, view.source, view.verdict, view.effect_digest) == ("turngate.turn_view.v1", "proof", "verified", digest)
    assert (view.reason, view.trust, view.root) == (None, "unsandboxed", str(root))
    assert view.diffs.available is True
    assert view.diffs.baseline_tree == git(root, "rev-parse", "HEAD^{tree}")
    assert [(c.id, c.status, c.required, c.command) for c in view.checks] == [("t", "passed", True, None)]
    log = view.checks[0].log
    assert log is not None and log.sha256 is not None and len(log.sha256) == 64
    assert [(f.path, f.change, f.scope, f.content_digest) for f in view.files] == [
        ("a.txt", "modified", "source", sha256("new\n"))
    ]
    assert view.files[0].diff == turngate.TurnViewDiff(kind="text", unified=unified, additions=1, deletions=1, truncated=False)
    assert (view.counts.files.modified, view.counts.additions, view.counts.deletions) == (1, 1, 1)
    assert view.attempts is None and view.affected_targets is None and view.hud is None


def test_runs_and_changes_join_the_view_and_a_bad_field_is_named(client: turngate.Client):
    digest = "a" * 64
    turn = {
        "effect_digest": digest,
        "records": [{"tool": "workspace", "path": "gone.txt", "content_digest": "deleted"}],
        "reports": [{"subject": "s", "status": "failed", "checks": [{"id": "unit", "kind": "test", "description": "npm test", "status": "failed"}]}],
        "outcome": {"kind": "incomplete", "reason": "unverified_mutation", "message": "completion gate: verification report required", "effect_digest": digest},
    }
    view = client.turn_view(
        turn,
        source="result",
        runs=[{"id": "unit", "command": "npm test", "duration_ms": 2500, "exit_code": 1, "timed_out": False, "failure_class": "assertion", "output": "x\nFAIL y\n", "log_path": None, "log_sha256": None}],
        changes=[{"path": "gone.txt", "change": "deleted", "scope": "source"}],
        diffs_unavailable="not a git work tree",
        attempts=2,
    )
    assert (view.verdict, view.reason, view.attempts) == ("incomplete", "unverified_mutation", 2)
    check = view.checks[0]
    assert (check.failure_class, check.duration_ms, check.output_tail, check.output_lines, check.log) == (
        "assertion", 2500, ["x", "FAIL y"], 2, None,
    )
    assert view.files[0].diff == turngate.TurnViewDiff(kind="unavailable", reason="not a git work tree")
    assert view.diffs.available is False and view.diffs.reason == "not a git work tree"
    with pytest.raises(turngate.InvalidParams) as raised:
        client.turn_view({**turn, "outcome": {"kind": "maybe"}})
    assert raised.value.path == "turn.outcome.kind"
