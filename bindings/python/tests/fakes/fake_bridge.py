"""A scriptable stand-in for `turngate bridge --stdio`, for transport tests.

It speaks JSON-RPC 2.0, one object per line, and serves each request on its own thread so
that calls overlap. Methods (params in brackets):

  initialize                → {protocol, version, methods}; protocol from FAKE_PROTOCOL
  shutdown                  → {} and exit 0 (unless FAKE_MODE=stubborn: keep running)
  echo [any]                → the params
  sleep [ms, value]         → {"value": value} after `ms` milliseconds
  progress [count]          → `count` progress notifications for this request, then {"sent": count}
  broadcast                 → one progress notification with request_id 0, then {}
  die [code, stderr]        → writes `stderr` to stderr, exits with `code` (no reply)
  hang                      → never replies
  garbage                   → writes a line that is not JSON
  stray                     → answers request id 999999 instead of its own
  fail [code, path, message]→ a JSON-RPC error with data {code, path?, message}
  anything else             → method_not_found

FAKE_MODE: "exit-early" exits 7 before reading anything (after writing to stderr);
"stubborn" ignores shutdown and EOF (the client must kill it).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

write_lock = threading.Lock()
MODE = os.environ.get("FAKE_MODE", "")


def send(message: dict) -> None:
    line = json.dumps(message, separators=(",", ":")) + "\n"
    with write_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def reply(request_id: object, result: object) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def error(request_id: object, code: str, message: str, path: str | None = None) -> None:
    data: dict = {"code": code, "message": message}
    if path is not None:
        data["path"] = path
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": message, "data": data}})


def serve(message: dict) -> None:
    request_id = message.get("id")
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        reply(
            request_id,
            {
                "protocol": os.environ.get("FAKE_PROTOCOL", "turngate.bridge.v1"),
                "version": "0.0.0-fake",
                "methods": ["echo", "initialize", "shutdown"],
            },
        )
    elif method == "shutdown":
        reply(request_id, {})
        if MODE != "stubborn":
            sys.stdout.flush()
            os._exit(0)
    elif method == "echo":
        reply(request_id, params)
    elif method == "sleep":
        time.sleep(params.get("ms", 0) / 1000)
        reply(request_id, {"value": params.get("value")})
    elif method == "progress":
        count = params.get("count", 0)
        for index in range(count):
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "progress",
                    "params": {
                        "request_id": request_id,
                        "event": "check_started",
                        "index": index,
                        "total": count,
                        "check_id": f"c{index}",
                        "command": "true",
                    },
                }
            )
        reply(request_id, {"sent": count})
    elif method == "broadcast":
        send(
            {
                "jsonrpc": "2.0",
                "method": "progress",
                "params": {
                    "request_id": 0,
                    "event": "check_started",
                    "index": 0,
                    "total": 1,
                    "check_id": "x",
                    "command": "true",
                },
            }
        )
        reply(request_id, {})
    elif method == "die":
        sys.stderr.write(params.get("stderr", ""))
        sys.stderr.flush()
        os._exit(params.get("code", 1))
    elif method == "hang":
        return
    elif method == "garbage":
        with write_lock:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
    elif method == "stray":
        reply(999999, {})
    elif method == "fail":
        error(request_id, params["code"], params["message"], params.get("path"))
    else:
        error(request_id, "method_not_found", f"method not found: {method}")


def main() -> None:
    sys.stderr.write("fake bridge: ready\n")
    sys.stderr.flush()
    if MODE == "exit-early":
        sys.stderr.write("fake bridge: cannot start (exit-early)\n")
        sys.stderr.flush()
        sys.exit(7)
    for line in sys.stdin:
        if not line.strip():
            continue
        threading.Thread(target=serve, args=(json.loads(line),), daemon=True).start()
    if MODE == "stubborn":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
