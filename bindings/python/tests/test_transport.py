"""The stdio transport against the scriptable fake bridge (tests/fakes/fake_bridge.py):
concurrency, timeouts, a bridge that dies or is killed mid-call, malformed output, error
mapping, progress notifications and clean shutdown without zombies."""

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


def reaped(pid: int) -> bool:
    """True when no process (running or zombie) has this pid."""
    return not Path(f"/proc/{pid}").exists()


def wait_reaped(pid: int, within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if reaped(pid):
            return True
        time.sleep(0.02)
    return reaped(pid)


def fake_children() -> list[int]:
    """Pids of this process's children that run the fake bridge, and its zombie children."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        # A zombie has an empty cmdline: any zombie child of this process counts.
        if int(ppid) == os.getpid() and (b"fake_bridge.py" in cmdline or state == "Z"):
            found.append(int(entry.name))
    return found


def transport_of(client: turngate.Client) -> SubprocessTransport:
    transport = client._transport  # noqa: SLF001 - tests look at the child process
    assert isinstance(transport, SubprocessTransport)
    return transport


def test_handshake_reports_protocol_version_and_methods(fake_client):
    client = fake_client()
    assert client.protocol == "turngate.bridge.v1"
    assert client.bridge_version == "0.0.0-fake"
    assert client.methods == frozenset({"echo", "initialize", "shutdown"})


def test_other_protocol_is_a_protocol_error_and_the_child_is_reaped(fake_client):
    with pytest.raises(turngate.ProtocolError) as info:
        fake_client(protocol="turngate.bridge.v0")
    assert info.value.code == "protocol_mismatch"
    assert str(info.value) == "the bridge speaks 'turngate.bridge.v0', not 'turngate.bridge.v1'"
    assert fake_children() == []


def test_concurrent_calls_from_many_threads_get_their_own_answers(fake_client):
    client = fake_client()

    def one(n: int) -> object:
        return client.call("sleep", {"ms": (n * 7) % 20, "value": n})["value"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        values = list(pool.map(one, range(200)))
    assert values == list(range(200))


def test_threads_that_time_out_hand_reading_over_to_the_others(fake_client):
    client = fake_client()

    def one(n: int) -> object:
        try:
            # Every third call outlives its timeout; the rest must still be answered.
            return client.call("sleep", {"ms": 1200 if n % 3 == 0 else n % 7, "value": n}, timeout=0.5)["value"]
        except turngate.Timeout:
            return "timeout"

    with ThreadPoolExecutor(max_workers=24) as pool:
        values = list(pool.map(one, range(96)))
    assert values == ["timeout" if n % 3 == 0 else n for n in range(96)]
    assert client.call("echo", {"after": "timeouts"}) == {"after": "timeouts"}


def test_timeout_raises_and_the_late_answer_is_ignored(fake_client):
    client = fake_client()
    started = time.monotonic()
    with pytest.raises(turngate.Timeout) as info:
        client.call("sleep", {"ms": 600, "value": 1}, timeout=0.1)
    # Raised before the answer came (600 ms), with slack for a loaded machine.
    assert time.monotonic() - started < 0.6
    assert info.value.method == "sleep"
    assert info.value.code == "timeout"
    assert str(info.value) == "turngate bridge call 'sleep' timed out after 0.1 s"
    # No fixed sleep on this side: a call the fake answers after 2 s keeps the transport
    # reading while the late answer (at 600 ms) arrives; it must be ignored, not taken as a
    # protocol violation, and this call must get its own value.
    assert client.call("sleep", {"ms": 2000, "value": 2}, timeout=30) == {"value": 2}
    assert client.call("echo", {"still": "ok"}) == {"still": "ok"}


def test_client_default_timeout_applies(fake_client):
    client = fake_client(timeout=0.1)
    with pytest.raises(turngate.Timeout):
        client.call("hang")


def test_killed_bridge_fails_a_pending_call_within_one_second_with_stderr_tail(fake_client):
    client = fake_client()
    pid = transport_of(client).pid
    outcome: dict[str, object] = {}

    def pending_call() -> None:
        started = time.monotonic()
        try:
            client.call("hang", timeout=30)
        except turngate.TurngateError as exc:
            outcome["error"] = exc
            outcome["after"] = time.monotonic() - started

    worker = threading.Thread(target=pending_call)
    worker.start()
    # Wait for the call to be in flight (not a fixed sleep).
    transport = transport_of(client)
    deadline = time.monotonic() + 10
    while not transport._pending and time.monotonic() < deadline:
        time.sleep(0.01)
    assert transport._pending
    killed_at = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    worker.join(5)
    error = outcome["error"]
    assert isinstance(error, turngate.BridgeError)
    assert time.monotonic() - killed_at < 1.0
    assert error.returncode == -signal.SIGKILL
    assert error.code == "bridge_exited"
    assert error.stderr_tail == "fake bridge: ready\n"
    assert str(error).startswith("the turngate bridge was killed by signal 9\n--- bridge stderr (tail) ---\n")
    assert wait_reaped(pid)
    with pytest.raises(turngate.BridgeError):
        client.call("echo")


def test_bridge_exit_mid_call_reports_code_and_stderr(fake_client):
    client = fake_client()
    with pytest.raises(turngate.BridgeError) as info:
        client.call("die", {"code": 3, "stderr": "boom: out of cheese\n"})
    assert info.value.returncode == 3
    assert info.value.stderr_tail == "fake bridge: ready\nboom: out of cheese\n"
    assert str(info.value) == (
        "the turngate bridge exited with code 3\n--- bridge stderr (tail) ---\nfake bridge: ready\nboom: out of cheese"
    )


def test_stderr_tail_keeps_only_the_last_8_kib(fake_client):
    client = fake_client()
    with pytest.raises(turngate.BridgeError) as info:
        client.call("die", {"code": 1, "stderr": "x" * 20000 + "END\n"})
    assert len(info.value.stderr_tail.encode()) == 8192
    assert info.value.stderr_tail.endswith("xEND\n")


def test_bridge_that_exits_before_the_handshake(fake_client):
    with pytest.raises(turngate.BridgeError) as info:
        fake_client(mode="exit-early")
    assert info.value.returncode == 7
    assert info.value.stderr_tail == "fake bridge: ready\nfake bridge: cannot start (exit-early)\n"
    assert fake_children() == []


def test_missing_bridge_executable_is_a_bridge_error(tmp_path):
    with pytest.raises(turngate.BridgeError) as info:
        turngate.Client(bridge=str(tmp_path / "no-such-turngate"))
    assert info.value.code == "bridge_spawn"
    assert "no-such-turngate" in str(info.value)


def test_a_line_that_is_not_json_fails_pending_calls_with_protocol_error(fake_client):
    client = fake_client()
    pid = transport_of(client).pid
    with pytest.raises(turngate.ProtocolError) as info:
        client.call("garbage", timeout=5)
    assert info.value.code == "protocol_violation"
    assert str(info.value) == "bridge sent a line that is not JSON: 'this is not json'"
    with pytest.raises(turngate.ProtocolError):
        client.call("echo")
    assert wait_reaped(pid)


def test_an_answer_to_an_unknown_id_is_a_protocol_violation(fake_client):
    client = fake_client()
    with pytest.raises(turngate.ProtocolError) as info:
        client.call("stray", timeout=5)
    assert str(info.value) == "bridge answered unknown request id 999999"


@pytest.mark.parametrize(
    ("code", "path", "kind"),
    [
        ("invalid_params", "records.0.path", turngate.InvalidParams),
        ("session_not_found", None, turngate.RemoteError),
        ("report_rejected", "reports.1.status", turngate.RemoteError),
        ("method_not_found", None, turngate.ProtocolError),
        ("too_large", None, turngate.ProtocolError),
    ],
)
def test_wire_error_codes_map_to_typed_errors(fake_client, code, path, kind):
    client = fake_client()
    params = {"code": code, "message": f"{path or 'params'}: nope"}
    if path is not None:
        params["path"] = path
    with pytest.raises(kind) as info:
        client.call("fail", params)
    assert type(info.value) is kind
    assert info.value.code == code
    assert str(info.value) == f"fail: {path or 'params'}: nope"
    if kind is not turngate.ProtocolError:
        assert info.value.path == path
    assert client.call("echo", {"after": code}) == {"after": code}


def test_progress_goes_to_the_calls_handler_and_others_to_the_clients(fake_client):
    seen_by_client: list[turngate.ProgressEvent] = []
    client = fake_client(on_progress=seen_by_client.append)
    seen_by_call: list[turngate.ProgressEvent] = []
    assert client.call("progress", {"count": 3}, on_progress=seen_by_call.append) == {"sent": 3}
    assert [(e.event, e.index, e.check_id) for e in seen_by_call] == [
        ("check_started", 0, "c0"),
        ("check_started", 1, "c1"),
        ("check_started", 2, "c2"),
    ]
    assert seen_by_client == []
    client.call("broadcast")
    assert [(e.request_id, e.check_id) for e in seen_by_client] == [(0, "x")]


def test_a_failing_progress_handler_does_not_break_the_client(fake_client):
    def explode(_event: turngate.ProgressEvent) -> None:
        raise RuntimeError("handler bug")

    client = fake_client()
    assert client.call("progress", {"count": 2}, on_progress=explode) == {"sent": 2}
    assert client.call("echo", {"n": 1}) == {"n": 1}


def test_close_shuts_down_cleanly_and_reaps_the_child(fake_client):
    client = fake_client()
    pid = transport_of(client).pid
    assert client.close() == 0
    assert reaped(pid)
    assert client.close() is None  # idempotent
    with pytest.raises(turngate.BridgeError) as info:
        client.call("echo")
    assert info.value.code == "closed"


def test_close_kills_a_bridge_that_ignores_shutdown(fake_client):
    client = fake_client(mode="stubborn")
    transport = transport_of(client)
    started = time.monotonic()
    returncode = transport.close(shutdown_timeout=0.2, exit_timeout=0.3)
    assert returncode == -signal.SIGKILL
    # 0.2 s + 0.3 s of timeouts, then SIGKILL: bounded, with slack for a loaded machine.
    assert time.monotonic() - started < 3.0
    assert reaped(transport.pid)


def test_close_while_another_thread_waits_fails_that_call(fake_client):
    client = fake_client(mode="stubborn")
    errors: list[BaseException] = []

    def pending_call() -> None:
        try:
            client.call("hang", timeout=30)
        except turngate.TurngateError as exc:
            errors.append(exc)

    worker = threading.Thread(target=pending_call)
    worker.start()
    transport = transport_of(client)
    deadline = time.monotonic() + 10
    while not transport._pending and time.monotonic() < deadline:
        time.sleep(0.01)
    transport.close(shutdown_timeout=0.2, exit_timeout=0.2)
    worker.join(3)
    assert len(errors) == 1 and isinstance(errors[0], turngate.BridgeError)
    assert errors[0].code == "closed"


def test_context_manager_closes(fake_client):
    with fake_client() as client:
        pid = transport_of(client).pid
        assert client.call("echo", {"a": [1, "二"]}) == {"a": [1, "二"]}
    assert client.closed
    assert reaped(pid)


def test_params_that_are_not_json_are_invalid_params(fake_client):
    client = fake_client()
    with pytest.raises(turngate.InvalidParams) as info:
        client.call("echo", {"x": float("nan")})
    assert info.value.path == ""
    with pytest.raises(turngate.InvalidParams):
        client.call("echo", {"x": object()})


def test_a_message_over_32_mib_is_refused_before_sending(fake_client):
    client = fake_client()
    with pytest.raises(turngate.ProtocolError) as info:
        client.call("echo", {"blob": "x" * (32 * 1024 * 1024)})
    assert info.value.code == "too_large"
    assert client.call("echo", {"ok": True}) == {"ok": True}
