"""The binding against the real bridge (`turngate bridge --stdio`, found as Client() finds it):
stateless methods with exact values, concurrency, sessions on real temporary git
repositories, progress, errors, a bridge killed mid-call, and a clean exit.

Expected digests were computed outside the implementation with ``printf '…' | sha256sum``;
texts by hand from reference §2.7/§3 (E4) and §2.19.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import turngate
from turngate.transport_subprocess import SubprocessTransport

HELLO_LF = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
"""printf 'hello\\n' | sha256sum"""

DIGEST_HELLO_TXT = "53d354dbc485e76334c73aebdea5f24d82c06572a91325bdab0e3e01c14b96ac"
"""printf 'write|hello.txt|5891b5…6be03' | sha256sum — the ledger after writing hello.txt"""

DIGEST_HELLO_OBSERVED = "e1cc307dc28702b05106f02ffd2a274900f8ebeb3559d32f0fe0c1d825727793"
"""printf 'workspace|hello.txt|5891b5…6be03\\nwrite|hello.txt|5891b5…6be03' | sha256sum — the
ledger once the workspace re-read adds the row that carries the bytes on disk (docs/design.md §3)"""

DIGEST_WRITE_A = "6491a350c728bc945b64b3f7d2710c43fb194e0b7cd49b5a79da586a7083b5e2"
"""printf 'write|a.txt|x' | sha256sum"""

E4 = (
    "completion gate: workspace mutation {d} has no bound Passed verification and no host waiver. "
    "Assistant text does not count. Bind a verification_report.effect_digest to this digest with "
    "required checks Passed, or obtain a host waiver for this digest."
)


def command(cmd: str, *, id: str = "check", required: bool = True) -> turngate.VerificationCommand:
    return turngate.VerificationCommand(id=id, kind="test", description=cmd, command=cmd, required=required)


def test_handshake_with_the_real_bridge(bridge):
    assert bridge.protocol == "turngate.bridge.v1"
    assert {"ledger.digest", "gate.decide", "session.create", "session.verify_commands"} <= bridge.methods


def test_stateless_methods_give_exact_values(bridge):
    assert bridge.effect_digest([]) == ""
    assert bridge.effect_digest([{"tool": "write", "path": "a.txt", "content_digest": "x"}]) == DIGEST_WRITE_A
    assert bridge.content_digest({"after": "hello\n"}) == HELLO_LF
    assert bridge.derive_report_status([], ["risk"]) == "needs_review"
    failed = {"id": "t", "kind": "test", "description": "d", "status": "failed"}
    summary = bridge.summarize_reports([{"subject": "b", "status": "failed", "checks": [failed]}])
    assert (summary.status, summary.failed_check_count, summary.failed_subjects) == ("failed", 1, ["b"])
    assert bridge.format_verification_summary(summary) == (
        "Verification failed: 1 failed check across subjects: b. 1 report, 0 required checks."
    )


def test_module_helpers_share_one_default_client():
    assert turngate.effect_digest([{"tool": "write", "path": "a.txt", "content_digest": "x"}]) == DIGEST_WRITE_A
    first = turngate.default_client()
    assert turngate.default_client() is first
    turngate.close_default_client()
    assert first.closed


def test_invalid_params_carry_the_field_path(bridge):
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.effect_digest([{"tool": "write", "path": "a"}])
    assert (info.value.code, info.value.path) == ("invalid_params", "records.0.content_digest")


def test_cyclic_or_very_deep_metadata_raises_invalid_params(bridge):
    message = "params are not JSON-serialisable: they contain a cycle or nest too deeply"
    cyclic: dict = {}
    cyclic["self"] = cyclic
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for metadata in (cyclic, {"a": deep}):
        with pytest.raises(turngate.InvalidParams) as info:
            bridge.content_digest(metadata)
        assert (info.value.code, info.value.path, str(info.value)) == ("invalid_params", "", message)
    assert bridge.content_digest({"a": [[1]]}) == (
        # printf '%s' '{"a":[[1]]}' | sha256sum
        "daf0c3e5e2173f7c74b5a2aa3a7a6bed1ad50b2d2a29857fbf3e7a4e59a70b3d"
    )


def test_proto_key_is_an_ordinary_key(bridge):
    # printf '%s' '{"__proto__":{"x":1},"b":1}' | sha256sum
    digest = "38d80567dc2b4ce3a33dce168281ce9109713bdf6a3fd52c4d8f70112112d689"
    assert bridge.content_digest({"__proto__": {"x": 1}, "b": 1}) == digest


def test_concurrent_calls_from_32_threads(bridge):
    rows = [[{"tool": "write", "path": "a.txt", "content_digest": "x"}], []]

    def one(n: int) -> str:
        return bridge.effect_digest(rows[n % 2])

    with ThreadPoolExecutor(max_workers=32) as pool:
        digests = list(pool.map(one, range(320)))
    assert digests == [DIGEST_WRITE_A, ""] * 160


def test_a_turn_is_incomplete_then_verified_by_bound_checks(bridge, repo):
    events: list[tuple[str, int, str]] = []
    with bridge.create_session(repo) as session:
        assert session.decide().terminal == turngate.CompletionTerminal(kind="narrative")
        (repo / "hello.txt").write_text("hello\n")
        seen = session.observe_tool("write", 0, {"file_path": "hello.txt", "after": "hello\n"})
        assert seen == turngate.ToolObservation(
            effect_digest=DIGEST_HELLO_TXT,
            added=[turngate.MutationRecord(tool="write", path="hello.txt", content_digest=HELLO_LF)],
            reports=[],
            refused_reports=[],
        )
        blocked = session.decide()
        assert (blocked.kind, blocked.reason, blocked.paths) == ("incomplete", "unverified_mutation", ["hello.txt"])
        assert blocked.message == E4.format(d=DIGEST_HELLO_TXT)

        result = session.verify_commands(
            "tests",
            [command("grep -q hello hello.txt", id="hello")],
            bind=True,
            on_progress=lambda e: events.append((e.event, e.index, e.check_id)),
        )
        assert result.binding == turngate.ReportBinding(bound=True, effect_digest=DIGEST_HELLO_OBSERVED)
        assert result.report.effect_digest == DIGEST_HELLO_OBSERVED
        assert result.report.status == "passed"
        assert [(run.id, run.status, run.exit_code) for run in result.runs] == [("hello", "passed", 0)]
        assert events == [("check_started", 0, "hello"), ("check_finished", 0, "hello")]

        outcome = session.decide()
        assert outcome.terminal == turngate.CompletionTerminal(kind="verified", effect_digest=DIGEST_HELLO_OBSERVED)
        assert session.effect_digest() == DIGEST_HELLO_OBSERVED
        assert session.verification_summary_text() == "Verification passed: 1 report, 1 required check."
        assert [r.subject for r in session.verification_reports()] == ["tests"]
        proof = session.proof()
        assert (proof.schema, proof.effect_digest, proof.terminal.kind) == (
            "turn_proof.v1",
            DIGEST_HELLO_OBSERVED,
            "verified",
        )
        assert proof.records == [
            turngate.MutationRecord(tool="workspace", path="hello.txt", content_digest=HELLO_LF),
            *seen.added,
        ]


def test_a_check_that_writes_leaves_its_report_unbound(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("a\n")
        session.observe_workspace()
        result = session.verify_commands("tests", [command("echo side-effect > b.txt")], bind=True)
        assert result.binding.bound is False
        assert result.binding.reason == "workspace_changed_during_check"
        assert result.binding.changed_paths == ["b.txt"]
        assert result.report.effect_digest is None
        assert session.decide().kind == "incomplete"


def test_failed_checks_carry_their_failure_class(bridge, repo):
    # issue 19: one vocabulary across the CLI, reports and hooks.
    with bridge.create_session(repo) as session:
        result = session.verify_commands(
            "tests",
            [
                command("turngate-no-such-program-xyz --run", id="missing"),
                turngate.VerificationCommand(
                    id="slow", kind="test", description="sleep", command="sleep 30", required=True, timeout_ms=300
                ),
                command("exit 1", id="assert"),
                command("true", id="ok"),
            ],
        )
        assert [(c.id, c.status, c.failure_class) for c in result.report.checks] == [
            ("missing", "failed", "infrastructure"),
            ("slow", "failed", "timeout"),
            ("assert", "failed", "assertion"),
            ("ok", "passed", None),
        ]


def test_observe_workspace_sees_the_delta_with_real_digests(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "hello.txt").write_text("hello\n")
        seen = session.observe_workspace()
        assert seen.complete is True and seen.unreadable == []
        assert seen.changes == [turngate.WorkspaceChange(path="hello.txt", change="added", content_digest=HELLO_LF, scope="source")]
        assert seen.effect_digest == session.effect_digest() != ""


def test_a_host_waiver_closes_the_gate(bridge, repo):
    waiver = turngate.CompletionWaiver(effect_digest=DIGEST_HELLO_TXT, reason="reviewed by the host")
    with bridge.create_session(repo, [waiver]) as session:
        (repo / "hello.txt").write_text("hello\n")
        session.observe_tool("write", 0, {"file_path": "hello.txt", "after": "hello\n"})
        assert session.decide().terminal == turngate.CompletionTerminal(kind="waived", effect_digest=DIGEST_HELLO_TXT)


def test_a_report_whose_status_lies_is_rejected_and_not_recorded(bridge, repo):
    with bridge.create_session(repo) as session:
        check = {"id": "t", "kind": "test", "description": "d", "status": "failed", "required": True}
        with pytest.raises(turngate.RemoteError) as info:
            session.record_verification_reports([{"subject": "s", "status": "passed", "checks": [check]}])
        assert (info.value.code, info.value.path) == ("report_status_mismatch", "reports.0.status")
        assert session.verification_reports() == []


def test_a_closed_session_is_unknown(bridge, repo):
    session = bridge.create_session(repo)
    session.close()
    with pytest.raises(turngate.RemoteError) as info:
        session.effect_digest()
    assert info.value.code == "session_not_found"


def test_a_missing_root_is_refused_with_its_path(bridge, tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(turngate.RemoteError) as info:
        bridge.create_session(missing)
    assert (info.value.code, info.value.path) == ("invalid_root", "root")
    assert str(info.value) == f"session.create: root is not a directory: {missing}"


def test_killing_the_bridge_during_a_check_fails_the_call_within_one_second(repo):
    client = turngate.Client()
    transport = client._transport  # noqa: SLF001 - the test kills the child
    assert isinstance(transport, SubprocessTransport)
    session = client.create_session(repo)
    errors: list[BaseException] = []

    def run_checks() -> None:
        try:
            session.verify_commands("slow", [command("sleep 5")])
        except turngate.TurngateError as exc:
            errors.append(exc)

    worker = threading.Thread(target=run_checks)
    worker.start()
    time.sleep(1.0)
    killed_at = time.monotonic()
    os.kill(transport.pid, signal.SIGKILL)
    worker.join(5)
    assert time.monotonic() - killed_at < 1.0
    assert len(errors) == 1 and isinstance(errors[0], turngate.BridgeError)
    assert errors[0].returncode == -signal.SIGKILL
    client.close()
    assert not Path(f"/proc/{transport.pid}").exists()


def test_close_ends_the_real_bridge_with_exit_code_0():
    client = turngate.Client()
    pid = client._transport.pid  # noqa: SLF001
    assert client.close() == 0
    assert not Path(f"/proc/{pid}").exists()
