"""JSON-RPC 2.0 over the bridge's stdio: one UTF-8 JSON object per line (docs/design.md §5).

One :class:`SubprocessTransport` owns one bridge child process. Any number of threads may
call :meth:`SubprocessTransport.call` at once: writes are serialised by a lock and responses
are matched by id, so calls overlap on the wire.

Reading follows the leader/follower pattern: while calls are in flight, exactly one calling
thread (the *leader*) reads stdout and hands every response to the call waiting on its id;
the others wait on their own condition, and one of them takes over when the leader's own
answer has arrived. A lone caller therefore reads its own answer (no thread hop: about half
of the binding's round-trip cost under load, see bench/roundtrip.py). A caller that finds
nothing else in flight leads from the moment it registers and first tries one poll + read:
when that chunk is exactly its own one-line answer it finishes and steps down under a single
lock acquisition (:meth:`SubprocessTransport._read_own`); any other chunk goes through the
general reader. Notifications are delivered on the leader's thread. Two daemon threads remain:

* the *stderr drain* keeps the last 8 KiB of stderr for error messages;
* the *monitor* waits for the process (so it is always reaped: no zombie) and, at most
  0.5 s after it exits, fails every pending call with :class:`BridgeError`.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import select
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._rpc import MAX_MESSAGE_BYTES, decode_message, encode_message, encode_request, request, response_outcome
from .errors import BridgeError, ProtocolError, Timeout, TurngateError

STDERR_TAIL_BYTES = 8 * 1024
"""How much of the bridge's stderr is kept for :attr:`BridgeError.stderr_tail`, in bytes."""

EXIT_GRACE_S = 0.5
"""After the child exits, how long (seconds) stdout may still be drained before pending
calls are failed anyway."""

POLL_S = 0.25
"""Longest single wait of the leader on stdout, in seconds, so it notices a failure that
another thread recorded (process exit, close)."""

READ_CHUNK = 1 << 16
"""Bytes asked of one ``os.read`` on stdout."""

NotificationHandler = Callable[[str, Any], None]


class _Pending:
    """One in-flight request: its outcome, and a condition (on the transport's mutex) that
    is notified when the outcome is in or when the caller may take over reading. The
    condition is made only when the caller has to wait for another reader (a lone caller
    reads its own answer and never needs one)."""

    __slots__ = ("method", "cond", "finished", "result", "error", "on_progress")

    def __init__(self, method: str, on_progress: NotificationHandler | None) -> None:
        self.method = method
        self.cond: threading.Condition | None = None
        self.finished = False
        self.result: Any = None
        self.error: TurngateError | None = None
        self.on_progress = on_progress

    def wake(self) -> None:
        """Notify the waiting caller, if it waits (call with the transport's mutex held)."""
        if self.cond is not None:
            self.cond.notify()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill a child that is still running (the monitor thread reaps it)."""
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "the turngate bridge closed its stdout"
    if returncode < 0:
        return f"the turngate bridge was killed by signal {-returncode}"
    return f"the turngate bridge exited with code {returncode}"


class SubprocessTransport:
    """A JSON-RPC client over a child process's stdin/stdout.

    Args:
        argv: the command line of the bridge, e.g. ``["node", ".../bin.js", "bridge",
            "--stdio"]``.
        env: the child's environment (``None`` = inherit), cwd: its working directory.
        on_notification: called as ``f(method, params)`` for every notification that is not
            routed to a call's own ``on_progress``, on the thread that is reading (one of
            the calling threads). Exceptions it raises are swallowed.

    Raises :class:`BridgeError` when the process cannot be started.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        on_notification: NotificationHandler | None = None,
    ) -> None:
        self.argv = list(argv)
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        # _mutex guards everything below except the buffer (leader only) and the stderr tail.
        self._mutex = threading.Lock()
        self._write_lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._abandoned: set[int] = set()
        self._followers: collections.deque[_Pending] = collections.deque()
        self._leading = False
        self._eof = False
        self._failure: TurngateError | None = None
        self._closed = False
        self._buffer = bytearray()
        self._stderr_lock = threading.Lock()
        self._stderr_tail: collections.deque[bytes] = collections.deque()
        self._stderr_len = 0
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
            )
        except OSError as exc:
            raise BridgeError(
                f"could not start the turngate bridge {self.argv!r}: {exc}", code="bridge_spawn"
            ) from None
        assert self._proc.stdout is not None and self._proc.stdin is not None
        self._stdout_fd = self._proc.stdout.fileno()
        self._stdin_fd = self._proc.stdin.fileno()
        # Only the leader polls (one at a time), so one registered poll object serves all.
        self._poller = select.poll()
        self._poller.register(self._stdout_fd, select.POLLIN)
        self._finalizer = weakref.finalize(self, _kill, self._proc)
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="turngate-bridge-stderr", daemon=True)
        self._monitor_thread = threading.Thread(target=self._monitor, name="turngate-bridge-monitor", daemon=True)
        self._stderr_thread.start()
        self._monitor_thread.start()

    # ------------------------------------------------------------------ public surface

    @property
    def pid(self) -> int:
        """The bridge process id."""
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The bridge's exit status once it has exited, else ``None``."""
        return self._proc.poll()

    def stderr_tail(self) -> str:
        """The last (at most 8 KiB) bytes the bridge wrote to stderr, decoded as UTF-8."""
        with self._stderr_lock:
            raw = b"".join(self._stderr_tail)
        return raw[-STDERR_TAIL_BYTES:].decode("utf-8", errors="replace")

    def call(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,
        on_progress: NotificationHandler | None = None,
    ) -> Any:
        """Send one request and block until its response.

        Input: ``method`` (wire name), ``params`` (JSON-compatible; ``None`` sends ``{}``),
        ``timeout`` in seconds (``None`` = wait for ever), ``on_progress`` called as
        ``f(method, params)`` for notifications whose ``params.request_id`` is this call's id.
        Output: the response's ``result`` value, as parsed JSON.
        Raises :class:`Timeout`, :class:`BridgeError` (process gone, with its stderr tail),
        :class:`ProtocolError`, :class:`InvalidParams` or :class:`RemoteError`.
        """
        request_id = next(self._ids)
        data = encode_request(request_id, method, params)
        deadline = None if timeout is None else time.monotonic() + timeout
        pending = _Pending(method, on_progress)
        with self._mutex:
            if self._failure is not None:
                raise self._failure
            if self._closed and method != "shutdown":
                raise BridgeError("the turngate client is closed", code="closed")
            self._pending[request_id] = pending
            # A lone caller (nothing else in flight, nobody reading) leads from the start and
            # first tries to read its own answer in one poll + read (see _read_own).
            solo = not self._leading and not self._eof and len(self._pending) == 1
            if solo:
                self._leading = True
        try:
            self._write(data)
        except (OSError, ValueError):
            # The pipe is gone; reading will meet EOF and fail every pending call. Bound the
            # wait in case the child keeps stdout open.
            write_deadline = time.monotonic() + EXIT_GRACE_S + 1.0
            deadline = write_deadline if deadline is None else min(deadline, write_deadline)
            if solo:
                self._step_down()
                solo = False
        if solo:
            self._read_own(pending, request_id, deadline)
        if not pending.finished and not self._await(pending, deadline):
            if self._forget(request_id, abandon=True):
                if self._proc.poll() is not None or self._eof:
                    raise BridgeError(
                        _describe_exit(self._proc.poll()),
                        stderr_tail=self.stderr_tail(),
                        returncode=self._proc.poll(),
                        code="bridge_exited",
                    )
                raise Timeout(method, timeout if timeout is not None else 0.0)
            self._await(pending, None)  # the answer arrived as the time ran out
        if pending.error is not None:
            raise pending.error
        return pending.result

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (a request without ``id``; no response is expected)."""
        data = encode_message(request(None, method, params))
        try:
            self._write(data)
        except (OSError, ValueError):
            raise BridgeError(
                f"could not write to the turngate bridge ({method})",
                stderr_tail=self.stderr_tail(),
                returncode=self._proc.poll(),
            ) from None

    def _write(self, data: bytes) -> None:
        """Write one whole message to the child's stdin, straight to the pipe (one
        ``write(2)`` for a message that fits the pipe; no user-space buffer to flush).
        Raises :class:`OSError` (e.g. a broken pipe) or :class:`ValueError` once
        :meth:`close` has closed stdin; ``close`` does so under the same lock, so the file
        descriptor cannot be closed (or reused) during a write."""
        with self._write_lock:
            stdin = self._proc.stdin
            if stdin is None or stdin.closed:
                raise ValueError("stdin of the turngate bridge is closed")
            written = os.write(self._stdin_fd, data)
            if written < len(data):
                view = memoryview(data)
                while written < len(data):
                    written += os.write(self._stdin_fd, view[written:])

    def close(self, *, shutdown_timeout: float = 2.0, exit_timeout: float = 2.0) -> int | None:
        """Stop the bridge: ``shutdown`` request, close stdin, wait, then kill.

        Input: ``shutdown_timeout`` (seconds to wait for the ``shutdown`` answer) and
        ``exit_timeout`` (seconds to wait for the exit after stdin is closed before SIGKILL).
        Output: the exit status. Idempotent and safe to call from any thread; the process is
        always reaped. Errors from a bridge that is already gone are ignored.
        """
        with self._mutex:
            already = self._closed
            self._closed = True
        if not already and self._failure is None and self._proc.poll() is None:
            try:
                self.call("shutdown", None, timeout=shutdown_timeout)
            except TurngateError:
                pass
        with self._write_lock:
            try:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=exit_timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._monitor_thread.join(EXIT_GRACE_S + 1.0)
        self._stderr_thread.join(1.0)
        self._fail_all(BridgeError("the turngate client is closed", code="closed"))
        # A leader sees the failure within POLL_S; only then may stdout be closed under it.
        stop = time.monotonic() + POLL_S + 1.0
        while time.monotonic() < stop:
            with self._mutex:
                if not self._leading:
                    break
            time.sleep(0.01)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._finalizer.detach()
        return self._proc.returncode

    # ------------------------------------------------------------------ leader / follower

    def _await(self, pending: _Pending, deadline: float | None) -> bool:
        """Wait until ``pending`` is finished (True) or ``deadline`` passed (False), reading
        stdout whenever no other thread is."""
        while True:
            with self._mutex:
                while not pending.finished and self._leading:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    if pending.cond is None:
                        pending.cond = threading.Condition(self._mutex)
                    self._followers.append(pending)
                    try:
                        pending.cond.wait(remaining)
                    finally:
                        self._followers.remove(pending)
                if pending.finished:
                    if not self._leading and self._followers:
                        # Woken to lead but already answered: pass the turn on.
                        self._followers[0].wake()
                    return True
                self._leading = True
            try:
                self._lead(pending, deadline)
            finally:
                with self._mutex:
                    self._leading = False
                    if self._followers:
                        self._followers[0].wake()
            if pending.finished:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _step_down(self) -> None:
        """Give up reading (the caller leads) and wake the first follower, if any."""
        with self._mutex:
            self._leading = False
            if self._followers:
                self._followers[0].wake()

    def _read_own(self, pending: _Pending, request_id: int, deadline: float | None) -> None:
        """The lone caller's fast path: it leads (``_leading`` set by :meth:`call`) and
        waits once (at most :data:`POLL_S` or until ``deadline``) for stdout, reads one
        chunk and, when that chunk is exactly one line answering ``request_id``, finishes
        ``pending`` from it and steps down under the same lock acquisition. Anything else
        (no data yet, EOF, a read error, several lines, a notification, a partial or
        malformed line, a buffered remainder) is handed to the general reader
        (:meth:`_feed`, then :meth:`_await` in :meth:`call`), which also reports protocol
        violations; the outcome is the same either way, only the number of steps differs."""
        stepped_down = False
        try:
            wait = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if wait <= 0 or self._failure is not None:
                return
            try:
                if not self._poller.poll(wait * 1000.0):
                    return
                chunk = os.read(self._stdout_fd, READ_CHUNK)
            except (OSError, ValueError):
                return  # the general reader meets the same error and handles it
            if not chunk:
                return  # EOF: the general reader records it and fails every call
            if not self._buffer and chunk.find(b"\n") == len(chunk) - 1:
                try:
                    message = decode_message(chunk[:-1].decode("utf-8"))
                except ValueError:
                    message = None
                if (
                    type(message) is dict
                    and type(message.get("id")) is int
                    and message["id"] == request_id
                    and message.get("jsonrpc") == "2.0"
                    and "method" not in message
                ):
                    with self._mutex:
                        # Not pending any more only when _fail_all has finished it already.
                        if self._pending.pop(request_id, None) is not None:
                            pending.result, pending.error = response_outcome(pending.method, message)
                            pending.finished = True
                        self._leading = False
                        stepped_down = True
                        if self._followers:
                            self._followers[0].wake()
                    return
            self._feed(chunk)
        finally:
            if not stepped_down:
                self._step_down()

    def _lead(self, pending: _Pending, deadline: float | None) -> None:
        """Read and dispatch stdout until ``pending`` is finished, the deadline passes, or
        the stream ends or fails."""
        fd = self._stdout_fd
        poll = self._poller.poll
        while not pending.finished and self._failure is None:
            if self._eof:
                # Someone met EOF; the monitor fails every call once the process is reaped.
                time.sleep(0.01)
                if deadline is not None and time.monotonic() >= deadline:
                    return
                continue
            wait = POLL_S
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return
            try:
                if not poll(wait * 1000.0):  # milliseconds, rounded up by poll itself
                    continue
                chunk = os.read(fd, READ_CHUNK)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._eof = True
                self._on_exit()
                return
            self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        """Dispatch every complete line that ``chunk`` completes; keep the rest. A chunk
        holding whole lines (the usual case) is split in place, without copying it into
        the buffer."""
        buffer = self._buffer
        if buffer:
            if chunk.find(b"\n") < 0:
                buffer += chunk
                if len(buffer) > MAX_MESSAGE_BYTES + 1:
                    self._violation(f"bridge sent a line over {MAX_MESSAGE_BYTES} bytes")
                return
            buffer += chunk
            chunk = bytes(buffer)
            buffer.clear()
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if not self._dispatch_line(chunk[start:end]):
                return
            start = end + 1
        if start < len(chunk):
            buffer += chunk[start:] if start else chunk
            if len(buffer) > MAX_MESSAGE_BYTES + 1:
                self._violation(f"bridge sent a line over {MAX_MESSAGE_BYTES} bytes")

    def _dispatch_line(self, line: bytes) -> bool:
        """Parse and route one line (without its newline); False after a protocol
        violation (stop reading). Blank lines are skipped."""
        if not line or line.isspace():
            return True
        try:
            message = decode_message(line.decode("utf-8"))
        except ValueError:
            snippet = line[:200].decode("utf-8", errors="replace").rstrip()
            self._violation(f"bridge sent a line that is not JSON: {snippet!r}")
            return False
        return self._dispatch(message)

    def _dispatch(self, message: Any) -> bool:
        """Route one message; False after a protocol violation (stop reading)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self._violation(f"bridge sent a message that is not JSON-RPC 2.0: {message!r:.200}")
            return False
        if "method" in message:
            if "id" in message:
                self._violation(f"bridge sent a request, which clients do not serve: {message!r:.200}")
                return False
            self._notification(message.get("method"), message.get("params"))
            return True
        request_id = message.get("id")
        if request_id is None:
            # A response with a null id answers a request the bridge could not parse.
            self._violation(f"bridge reported an error for an unparsable request: {message!r:.300}")
            return False
        with self._mutex:
            known = isinstance(request_id, int) and not isinstance(request_id, bool)
            pending = self._pending.pop(request_id, None) if known else None
            abandoned = known and request_id in self._abandoned
            if abandoned:
                self._abandoned.discard(request_id)
            if pending is not None:
                pending.result, pending.error = response_outcome(pending.method, message)
                pending.finished = True
                pending.wake()
        if pending is None and not abandoned:
            self._violation(f"bridge answered unknown request id {request_id!r}")
            return False
        return True

    def _notification(self, method: Any, params: Any) -> None:
        handler = self._on_notification
        if isinstance(params, dict) and isinstance(params.get("request_id"), int):
            with self._mutex:
                pending = self._pending.get(params["request_id"])
            if pending is not None and pending.on_progress is not None:
                handler = pending.on_progress
        if handler is None or not isinstance(method, str):
            return
        try:
            handler(method, params)
        except Exception:  # noqa: BLE001 - a host callback must not break reading
            pass

    # ------------------------------------------------------------------ threads

    def _drain_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        try:
            while True:
                chunk = stderr.read1(4096) if hasattr(stderr, "read1") else stderr.read(4096)
                if not chunk:
                    break
                with self._stderr_lock:
                    self._stderr_tail.append(chunk)
                    self._stderr_len += len(chunk)
                    while self._stderr_len - len(self._stderr_tail[0]) >= STDERR_TAIL_BYTES:
                        self._stderr_len -= len(self._stderr_tail.popleft())
        except (OSError, ValueError):
            pass

    def _monitor(self) -> None:
        self._proc.wait()
        # Give a reading caller the chance to drain answers written before the exit.
        stop = time.monotonic() + EXIT_GRACE_S
        while time.monotonic() < stop:
            with self._mutex:
                if not self._pending or self._failure is not None:
                    break
            time.sleep(0.01)
        self._on_exit()

    # ------------------------------------------------------------------ failure paths

    def _on_exit(self) -> None:
        """stdout reached EOF or the process exited: fail whatever is still pending."""
        returncode = self._proc.poll()
        if returncode is None:
            try:
                returncode = self._proc.wait(timeout=EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                returncode = None
        self._stderr_thread.join(EXIT_GRACE_S)
        with self._mutex:
            closed = self._closed
        self._fail_all(
            BridgeError(
                "the turngate client is closed" if closed else _describe_exit(returncode),
                stderr_tail=self.stderr_tail(),
                returncode=returncode,
                code="closed" if closed else "bridge_exited",
            )
        )

    def _violation(self, message: str) -> None:
        """The bridge broke the protocol: fail every pending call and stop the child."""
        self._fail_all(ProtocolError(message, code="protocol_violation"))
        _kill(self._proc)

    def _fail_all(self, error: TurngateError) -> None:
        with self._mutex:
            if self._failure is None:
                self._failure = error
            for entry in self._pending.values():
                entry.error = self._failure
                entry.finished = True
                entry.wake()
            self._pending.clear()

    def _forget(self, request_id: int, *, abandon: bool = False) -> bool:
        """Remove a request this caller gives up on; True when it was still pending (so no
        one else will finish it). ``abandon``: ignore its answer if one arrives later."""
        with self._mutex:
            removed = self._pending.pop(request_id, None) is not None
            if removed and abandon:
                self._abandoned.add(request_id)
        return removed
