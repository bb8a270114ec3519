"""Clean-room checks (docs/design.md §3b) through the Python binding against the real bridge:
the session's ``isolation`` option and a per-call override pass through, and the result says
where the checks ran. The fail-closed case forces the sandbox off (``TURNGATE_BWRAP=none`` in
the bridge's environment), so it runs on every machine.
"""

from __future__ import annotations

import hashlib
import shutil

import pytest

import turngate


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def command(cmd: str) -> turngate.VerificationCommand:
    return turngate.VerificationCommand(id="check", kind="test", description=cmd, command=cmd, required=True)


def test_a_required_clean_room_whose_sandbox_cannot_start_fails_closed(repo, monkeypatch):
    monkeypatch.setenv("TURNGATE_BWRAP", "none")
    with turngate.Client() as client, client.create_session(repo, options={"isolation": "clean-room"}) as session:
        (repo / "a.txt").write_text("a\n")
        result = session.verify_commands("tests", [command("true")], bind=True)
        assert result.isolation == turngate.Isolation(
            mode="clean-room", requested="clean-room", available=False, reason="TURNGATE_BWRAP=none"
        )
        assert result.binding.reason == "isolation_unavailable"
        assert result.runs == []
        outcome = session.decide()
        assert (outcome.kind, outcome.reason) == ("incomplete", "isolation_unavailable")


def test_a_per_call_isolation_overrides_the_sessions(bridge, repo):
    with bridge.create_session(repo, options={"isolation": "clean-room"}) as session:
        (repo / "a.txt").write_text("a\n")
        result = session.verify_commands("tests", [command("test -f a.txt")], bind=True, isolation="in-place")
        assert result.isolation == turngate.Isolation(mode="in-place", requested="in-place", available=True)
        assert result.binding.bound is True


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="clean-room test skipped: bubblewrap is not installed")
def test_clean_room_checks_write_only_the_copy(repo, monkeypatch, tmp_path_factory):
    monkeypatch.setenv("TURNGATE_ROOM_DIR", str(tmp_path_factory.mktemp("rooms")))
    with turngate.Client() as client, client.create_session(repo, options={"isolation": "auto"}) as session:
        (repo / "a.txt").write_text("a\n")
        result = session.verify_commands("tests", [command("grep -q a a.txt && echo out > new.txt")], bind=True)
        if result.isolation.mode != "clean-room":
            pytest.skip(f"clean-room test skipped: the sandbox cannot start here ({result.isolation.reason})")
        assert result.binding == turngate.ReportBinding(
            bound=True, effect_digest=sha256("workspace|a.txt|" + sha256("a\n"))
        )
        assert not (repo / "new.txt").exists()


def test_the_setup_option_runs_the_configured_setup_when_a_dependency_folder_changed(
    repo, monkeypatch, tmp_path_factory
):
    monkeypatch.setenv("TURNGATE_ROOM_DIR", str(tmp_path_factory.mktemp("rooms")))
    (repo / ".gitignore").write_text("node_modules/\n")
    setup = "echo setting up; exit 3"
    options = {"isolation": "auto", "setup": setup}
    with turngate.Client() as client, client.create_session(repo, options=options) as session:
        (repo / "node_modules" / "dep").mkdir(parents=True)
        (repo / "node_modules" / "dep" / "index.js").write_text("module.exports = 1;\n")
        result = session.verify_commands("tests", [command("true")], bind=True)
        if result.isolation.mode != "clean-room":
            pytest.skip(f"clean-room test skipped: the sandbox cannot start here ({result.isolation.reason})")
        assert [(run.id, run.status) for run in result.runs] == [("setup", "failed")]
        outcome = session.decide()
        assert outcome.kind == "incomplete"
        assert outcome.message is not None
        assert outcome.message.startswith(
            f"completion gate: the dependency setup `{setup}` failed in the clean room"
            " (it ran because node_modules changed during the turn), so no check ran"
        )


def test_a_setup_option_other_than_a_command_or_false_is_refused_naming_the_field(bridge, repo):
    with pytest.raises(turngate.TurngateError, match=r"options\.setup"):
        bridge.create_session(repo, options={"setup": True})
