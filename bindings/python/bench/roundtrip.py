"""Round-trip benchmark of the Python binding (issue 4 item 5). A script, not a test.

    python3 bindings/python/bench/roundtrip.py [--calls 10000] [--warmup 500] [--starts 5]

Measures, in one run:
1. the bridge's start-up time: ``turngate.Client()`` from spawn until ``initialize`` has
   answered (median of ``--starts`` starts);
2. ``--calls`` sequential ``ledger.digest`` calls through ``Client.effect_digest`` on a small
   ledger (3 rows): p50 and p95 per call, in microseconds;
3. the floor, ``--calls`` times: Python writes the same request line (the exact bytes the
   binding sends for this call, encoded once before timing) to a trivial Node echo process
   over a pipe (``readline`` in, the same line out), reads the echoed line back and decodes
   its JSON with ``json.loads`` (a client must decode what it reads; encoding the request is
   not part of the floor);
and prints the ratio binding / floor for p50 and p95 (target ≤ 2×). It also times the same
client against a trivial Node JSON-RPC responder (no validation, no hashing), which shows
how much of the round trip is the binding's own (convert, encode, pipe, read, decode, match).
The three alternate in chunks of 500 calls, so a change in machine load hits all alike;
compare ratios, not absolute figures, across runs.

The bridge is found like ``turngate.Client()`` finds it (TURNGATE_BRIDGE, the repo's built
CLI, turngate on PATH); node through TURNGATE_NODE or PATH. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import turngate  # noqa: E402
from turngate._rpc import encode_message, request  # noqa: E402
from turngate.discovery import find_node  # noqa: E402

RECORDS = [
    {
        "tool": "write",
        "path": "src/app.py",
        "content_digest": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    },
    {
        "tool": "edit",
        "path": "src/util.py",
        "content_digest": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    {
        "tool": "write",
        "path": "tests/test_app.py",
        "content_digest": "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
    },
]

RESPONDER_JS = (
    "const rl = require('readline').createInterface({ input: process.stdin });"
    "const hello = { protocol: 'turngate.bridge.v1', version: 'responder', methods: [] };"
    "rl.on('line', (line) => { const m = JSON.parse(line);"
    " const result = m.method === 'initialize' ? hello : m.method === 'shutdown' ? {} : { effect_digest: '0'.repeat(64) };"
    " process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');"
    " if (m.method === 'shutdown') process.exit(0); });"
)
"""A trivial JSON-RPC responder (no validation, no hashing): isolates the Python side."""

ECHO_JS = (
    "const rl = require('readline').createInterface({ input: process.stdin });"
    "rl.on('line', (line) => process.stdout.write(line + '\\n'));"
)


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile of ``samples`` (``fraction`` in (0, 1])."""
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * fraction // 1))  # ceil(n * fraction)
    return ordered[int(rank) - 1]


def time_startups(starts: int) -> list[float]:
    """Seconds from spawning the bridge until ``initialize`` answered, per start."""
    out = []
    for _ in range(starts):
        began = time.perf_counter()
        client = turngate.Client()
        out.append(time.perf_counter() - began)
        client.close()
    return out


class EchoFloor:
    """The floor: a trivial Node echo process over a pipe, one line in, the same line out;
    Python writes the pre-encoded request line, reads the echo and decodes its JSON."""

    def __init__(self, line: bytes) -> None:
        self.line = line
        self.proc = subprocess.Popen([find_node(), "-e", ECHO_JS], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def round_trip(self) -> float:
        """Seconds for one write + flush + readline of the line + ``json.loads`` of it."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        began = time.perf_counter()
        stdin.write(self.line)
        stdin.flush()
        echoed = stdout.readline()
        message = json.loads(echoed)
        elapsed = time.perf_counter() - began
        if echoed != self.line or message.get("method") != "ledger.digest":
            raise RuntimeError("the echo process answered something else")
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


def timed_digest(client: turngate.Client, samples: list[float]) -> str:
    began = time.perf_counter()
    digest = client.effect_digest(RECORDS)
    samples.append(time.perf_counter() - began)
    return digest


def time_calls(
    calls: int, warmup: int, line: bytes, chunk: int = 500
) -> tuple[list[float], list[float], list[float], str]:
    """Per-call seconds of ``calls`` sequential ``effect_digest`` calls on the bridge, of as
    many on a trivial JSON-RPC responder (the binding's own share), and of as many floor
    round trips — run in alternating chunks of ``chunk`` so all three see the same machine
    load; also the digest the bridge returned."""
    binding: list[float] = []
    responder: list[float] = []
    floor: list[float] = []
    digest = ""
    echo = EchoFloor(line)
    trivial = shlex.join([find_node(), "-e", RESPONDER_JS])
    try:
        with turngate.Client() as client, turngate.Client(bridge=trivial) as plain:
            for _ in range(warmup):
                client.effect_digest(RECORDS)
                plain.effect_digest(RECORDS)
                echo.round_trip()
            while len(binding) < calls:
                n = min(chunk, calls - len(binding))
                for _ in range(n):
                    digest = timed_digest(client, binding)
                for _ in range(n):
                    timed_digest(plain, responder)
                for _ in range(n):
                    floor.append(echo.round_trip())
    finally:
        echo.close()
    return binding, responder, floor, digest


def pin_to_one_cpu() -> int | None:
    """Pins this process (and so the bridge, the responder and the echo process it starts,
    which inherit the mask) to the lowest CPU it may run on; returns that CPU, or None where
    ``os.sched_setaffinity`` is missing or refused.

    Why: on an idle virtual machine a pipe round trip between two CPUs waits for the
    hypervisor to wake the halted one (measured on a 2-vCPU machine: the same bridge answered
    in a p50 of 27 us or of 85-94 us per call from one run to the next, the echo floor stayed
    at 10 us). Which server the scheduler moves to the other CPU changes between runs, so
    unpinned ratios swing from 2x to 8x without any change in the code. On one CPU every
    process pays only its own work, the per-call cost this benchmark is about."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return None
    return cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument(
        "--samples-json",
        help="also write the per-call samples (ms) of the binding and the floor to this file (used by pnpm qualify)",
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="do not pin the benchmark and the processes it starts to one CPU (see pin_to_one_cpu)",
    )
    args = parser.parse_args()

    pinned = None if args.no_pin else pin_to_one_cpu()
    print(
        f"pinned to CPU {pinned}: this process and every process it starts share it (run with --no-pin for the unpinned figure)"
        if pinned is not None
        else "not pinned: processes run on any CPU (ratios then include cross-CPU wake-ups; see pin_to_one_cpu)"
    )
    line = encode_message(request(1, "ledger.digest", {"records": RECORDS}))
    startups = time_startups(args.starts)
    binding, responder, floor, digest = time_calls(args.calls, args.warmup, line)

    if args.samples_json:
        Path(args.samples_json).write_text(
            json.dumps({"binding_ms": [t * 1000 for t in binding], "floor_ms": [t * 1000 for t in floor]})
        )
    us = 1e6
    b50, b95 = percentile(binding, 0.50) * us, percentile(binding, 0.95) * us
    f50, f95 = percentile(floor, 0.50) * us, percentile(floor, 0.95) * us
    r50, r95 = percentile(responder, 0.50) * us, percentile(responder, 0.95) * us
    print(
        f"bridge start-up to initialize: median {statistics.median(startups) * 1000:.1f} ms "
        f"(min {min(startups) * 1000:.1f} ms, {args.starts} starts)"
    )
    print(
        f"ledger.digest via turngate.Client: {args.calls} sequential calls, {len(RECORDS)} rows, "
        f"request {len(line)} bytes: p50 {b50:.1f} us, p95 {b95:.1f} us (digest {digest[:12]}…)"
    )
    print(
        "floor, the same request line written to a node echo process over a pipe, read back and "
        f"json-decoded: p50 {f50:.1f} us, p95 {f95:.1f} us"
    )
    print(f"same client on a trivial node JSON-RPC responder (the binding's share): p50 {r50:.1f} us, p95 {r95:.1f} us")
    print(f"ratio binding/floor: p50 {b50 / f50:.2f}x, p95 {b95 / f95:.2f}x (target <= 2x)")
    print(f"ratio responder/floor: p50 {r50 / f50:.2f}x, p95 {r95 / f95:.2f}x")
    print(f"ratio binding/responder (the bridge's own cost): p50 {b50 / r50:.2f}x, p95 {b95 / r95:.2f}x")
    print(
        json.dumps(
            {
                "startup_ms_median": round(statistics.median(startups) * 1000, 1),
                "binding_us": {"p50": round(b50, 1), "p95": round(b95, 1)},
                "floor_us": {"p50": round(f50, 1), "p95": round(f95, 1)},
                "responder_us": {"p50": round(r50, 1), "p95": round(r95, 1)},
                "ratio": {"p50": round(b50 / f50, 2), "p95": round(b95 / f95, 2)},
                "ratio_to_responder": {"p50": round(b50 / r50, 2), "p95": round(b95 / r95, 2)},
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
