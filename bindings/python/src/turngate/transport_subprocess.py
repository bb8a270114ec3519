"""JSON-RPC 2.0 over the bridge's stdio: one UTF-8 JSON object per line (DESIGN.md §5).

One :class:`SubprocessTransport` owns one bridge child process and three daemon threads:

* the *reader* parses stdout line by line and hands each response to the caller waiting on
  its id; notifications (no ``id``) go to the notification callback;
* the *stderr drain* keeps the last 8 KiB of stderr for error messages;
* the *monitor* waits for the process (so it is always reaped: no zombie) and, at most
  0.5 s after it exits, fails every pending call with :class:`BridgeError`.

Any number of threads may call :meth:`SubprocessTransport.call` at once; writes are
serialised by a lock and responses are matched by id, so calls overlap on the wire.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import subprocess
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._rpc import MAX_MESSAGE_BYTES, encode_message, request, response_outcome
from .errors import BridgeError, ProtocolError, Timeout, TurngateError

STDERR_TAIL_BYTES = 8 * 1024
"""How much of the bridge's stderr is kept for :attr:`BridgeError.stderr_tail`, in bytes."""

EXIT_GRACE_S = 0.5
"""After the child exits, how long (seconds) the reader may drain stdout before pending
calls are failed anyway."""

NotificationHandler = Callable[[str, Any], None]


class _Pending:
    """One in-flight request: its outcome, and a lock held until the outcome is in.

    Exactly one party finishes a request — whoever removed it from the transport's pending
    table (the reader for its response, or a failure path) — so ``finish`` runs once. A plain
    lock is cheaper to create and to wait on than a ``threading.Event``.
    """

    __slots__ = ("method", "done", "result", "error", "on_progress")

    def __init__(self, method: str, on_progress: NotificationHandler | None) -> None:
        self.method = method
        self.done = threading.Lock()
        self.done.acquire()
        self.result: Any = None
        self.error: TurngateError | None = None
        self.on_progress = on_progress

    def finish(self, result: Any, error: TurngateError | None) -> None:
        self.result, self.error = result, error
        self.done.release()

    def wait(self, timeout: float | None) -> bool:
        """True once finished; False when ``timeout`` seconds passed first."""
        return self.done.acquire(True, -1 if timeout is None else timeout)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Finalizer: kill a child the owner forgot to close (it is reaped by the monitor)."""
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass


class SubprocessTransport:
    """A JSON-RPC client over a child process's stdin/stdout.

    Args:
        argv: the command line of the bridge, e.g. ``["node", ".../bin.js", "bridge",
            "--stdio"]``.
        env: the child's environment (``None`` = inherit), cwd: its working directory.
        on_notification: called as ``f(method, params)`` on the reader thread for every
            notification that is not routed to a call's own ``on_progress``. Exceptions it
            raises are swallowed so that they cannot stop the reader.

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
        self._lock = threading.Lock()  # guards _pending, _abandoned, _failure
        self._write_lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._abandoned: set[int] = set()
        self._failure: TurngateError | None = None
        self._stderr_tail: collections.deque[bytes] = collections.deque()
        self._stderr_len = 0
        self._closed = False
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
        self._finalizer = weakref.finalize(self, _kill, self._proc)
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="turngate-bridge-stderr", daemon=True)
        self._reader_thread = threading.Thread(target=self._read_stdout, name="turngate-bridge-reader", daemon=True)
        self._monitor_thread = threading.Thread(target=self._monitor, name="turngate-bridge-monitor", daemon=True)
        self._stderr_thread.start()
        self._reader_thread.start()
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
        with self._lock:
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

        Input: ``method`` (wire name), ``params`` (JSON-compatible; omitted when ``None``),
        ``timeout`` in seconds (``None`` = wait for ever), ``on_progress`` called as
        ``f(method, params)`` for notifications whose ``params.request_id`` is this call's id.
        Output: the response's ``result`` value, as parsed JSON.
        Raises :class:`Timeout`, :class:`BridgeError` (process gone, with its stderr tail),
        :class:`ProtocolError`, :class:`InvalidParams` or :class:`RemoteError`.
        """
        request_id = next(self._ids)
        data = encode_message(request(request_id, method, params))
        pending = _Pending(method, on_progress)
        with self._lock:
            if self._failure is not None:
                raise self._failure
            if self._closed and method != "shutdown":
                raise BridgeError("the turngate client is closed", code="closed")
            self._pending[request_id] = pending
        try:
            with self._write_lock:
                stdin = self._proc.stdin
                assert stdin is not None
                stdin.write(data)
                stdin.flush()
        except (OSError, ValueError):
            # The pipe is gone: the monitor fails every pending call shortly.
            if not pending.wait(EXIT_GRACE_S + 1.0):
                if self._forget(request_id):
                    raise BridgeError(
                        f"could not write to the turngate bridge ({method})",
                        stderr_tail=self.stderr_tail(),
                        returncode=self._proc.poll(),
                    ) from None
                pending.wait(None)  # being finished right now by another thread
        else:
            if not pending.wait(timeout):
                if self._forget(request_id, abandon=True):
                    raise Timeout(method, timeout if timeout is not None else 0.0)
                pending.wait(None)  # the answer arrived as the time ran out
        if pending.error is not None:
            raise pending.error
        return pending.result

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (a request without ``id``; no response is expected)."""
        data = encode_message(request(None, method, params))
        with self._write_lock:
            stdin = self._proc.stdin
            assert stdin is not None
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError):
                raise BridgeError(
                    f"could not write to the turngate bridge ({method})",
                    stderr_tail=self.stderr_tail(),
                    returncode=self._proc.poll(),
                ) from None

    def close(self, *, shutdown_timeout: float = 2.0, exit_timeout: float = 2.0) -> int | None:
        """Stop the bridge: ``shutdown`` request, close stdin, wait, then kill.

        Input: ``shutdown_timeout`` (seconds to wait for the ``shutdown`` answer) and
        ``exit_timeout`` (seconds to wait for the exit after stdin is closed before SIGKILL).
        Output: the exit status. Idempotent and safe to call from any thread; the process is
        always reaped. Errors from a bridge that is already gone are ignored.
        """
        with self._lock:
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
        self._reader_thread.join(1.0)
        self._stderr_thread.join(1.0)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._finalizer.detach()
        self._fail_all(BridgeError("the turngate client is closed", code="closed"))
        return self._proc.returncode

    # ------------------------------------------------------------------ threads

    def _read_stdout(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            while True:
                line = stdout.readline(MAX_MESSAGE_BYTES + 2)
                if not line:
                    break
                if not line.endswith(b"\n") and len(line) > MAX_MESSAGE_BYTES:
                    self._violation(f"bridge sent a line over {MAX_MESSAGE_BYTES} bytes")
                    return
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    snippet = line[:200].decode("utf-8", errors="replace").rstrip()
                    self._violation(f"bridge sent a line that is not JSON: {snippet!r}")
                    return
                self._dispatch(message)
        except (OSError, ValueError):
            pass
        self._on_exit(wait=True)

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self._violation(f"bridge sent a message that is not JSON-RPC 2.0: {message!r:.200}")
            return
        if "method" in message:
            if "id" in message:
                self._violation(f"bridge sent a request, which clients do not serve: {message!r:.200}")
            else:
                self._notification(message.get("method"), message.get("params"))
            return
        request_id = message.get("id")
        if request_id is None:
            # A response with a null id answers a request the bridge could not parse.
            self._violation(f"bridge reported an error for an unparsable request: {message!r:.300}")
            return
        with self._lock:
            pending = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
            abandoned = isinstance(request_id, int) and request_id in self._abandoned
            if abandoned:
                self._abandoned.discard(request_id)
        if pending is None:
            if not abandoned:
                self._violation(f"bridge answered unknown request id {request_id!r}")
            return
        pending.finish(*response_outcome(pending.method, message))

    def _notification(self, method: Any, params: Any) -> None:
        handler = self._on_notification
        if isinstance(params, dict) and isinstance(params.get("request_id"), int):
            with self._lock:
                pending = self._pending.get(params["request_id"])
            if pending is not None and pending.on_progress is not None:
                handler = pending.on_progress
        if handler is None or not isinstance(method, str):
            return
        try:
            handler(method, params)
        except Exception:  # noqa: BLE001 - a host callback must not kill the reader
            pass

    def _drain_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        try:
            while True:
                chunk = stderr.read1(4096) if hasattr(stderr, "read1") else stderr.read(4096)
                if not chunk:
                    break
                with self._lock:
                    self._stderr_tail.append(chunk)
                    self._stderr_len += len(chunk)
                    while self._stderr_len - len(self._stderr_tail[0]) >= STDERR_TAIL_BYTES:
                        self._stderr_len -= len(self._stderr_tail.popleft())
        except (OSError, ValueError):
            pass

    def _monitor(self) -> None:
        self._proc.wait()
        self._reader_thread.join(EXIT_GRACE_S)
        self._on_exit(wait=False)

    # ------------------------------------------------------------------ failure paths

    def _on_exit(self, *, wait: bool) -> None:
        """stdout reached EOF or the process exited: fail whatever is still pending."""
        returncode = self._proc.poll()
        if returncode is None and wait:
            try:
                returncode = self._proc.wait(timeout=EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                returncode = None
        self._stderr_thread.join(EXIT_GRACE_S)
        if returncode is None:
            what = "the turngate bridge closed its stdout"
        elif returncode < 0:
            what = f"the turngate bridge was killed by signal {-returncode}"
        else:
            what = f"the turngate bridge exited with code {returncode}"
        with self._lock:
            closed = self._closed
        self._fail_all(
            BridgeError(
                what if not closed else "the turngate client is closed",
                stderr_tail=self.stderr_tail(),
                returncode=returncode,
                code="bridge_exited" if not closed else "closed",
            )
        )

    def _violation(self, message: str) -> None:
        """The bridge broke the protocol: fail every pending call and stop the child."""
        self._fail_all(ProtocolError(message, code="protocol_violation"))
        _kill(self._proc)

    def _fail_all(self, error: TurngateError) -> None:
        with self._lock:
            if self._failure is None:
                self._failure = error
            pending = list(self._pending.values())
            self._pending.clear()
        for entry in pending:
            entry.finish(None, self._failure)

    def _forget(self, request_id: int, *, abandon: bool = False) -> bool:
        """Remove a request this caller gives up on; True when it was still pending (so no
        one else will finish it). ``abandon``: ignore its answer if one arrives later."""
        with self._lock:
            removed = self._pending.pop(request_id, None) is not None
            if removed and abandon:
                self._abandoned.add(request_id)
        return removed
