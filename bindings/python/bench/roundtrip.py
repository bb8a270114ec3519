"""Round-trip benchmark of the Python binding (issue 4 item 5). A script, not a test.

    python3 bindings/python/bench/roundtrip.py [--calls 10000] [--warmup 500] [--starts 5]

Measures, in one run:
1. the bridge's start-up time: ``turngate.Client()`` from spawn until ``initialize`` has
   answered (median of ``--starts`` starts);
2. ``--calls`` sequential ``ledger.digest`` calls through ``Client.effect_digest`` on a small
   ledger (3 rows): p50 and p95 per call, in microseconds;
3. the floor: the same JSON-RPC request line written to a trivial Node echo process over a
   pipe (it reads a line and writes it back) and read back, ``--calls`` times;
and prints the ratio binding / floor for p50 and p95 (target ≤ 2×).

The bridge is found like ``turngate.Client()`` finds it (TURNGATE_BRIDGE, the repo's built
CLI, turngate on PATH); node through TURNGATE_NODE or PATH. Standard library only.
"""

from __future__ import annotations

import argparse
import json
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


def time_binding(calls: int, warmup: int) -> tuple[list[float], str]:
    """Per-call seconds of ``calls`` sequential ``effect_digest`` calls, and the digest."""
    with turngate.Client() as client:
        for _ in range(warmup):
            client.effect_digest(RECORDS)
        samples = []
        digest = ""
        for _ in range(calls):
            began = time.perf_counter()
            digest = client.effect_digest(RECORDS)
            samples.append(time.perf_counter() - began)
    return samples, digest


def time_floor(calls: int, warmup: int, line: bytes) -> list[float]:
    """Per-round-trip seconds of ``line`` through a Node echo process over a pipe."""
    proc = subprocess.Popen([find_node(), "-e", ECHO_JS], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        samples = []
        for index in range(warmup + calls):
            began = time.perf_counter()
            proc.stdin.write(line)
            proc.stdin.flush()
            echoed = proc.stdout.readline()
            elapsed = time.perf_counter() - began
            if echoed != line:
                raise RuntimeError("the echo process answered something else")
            if index >= warmup:
                samples.append(elapsed)
        return samples
    finally:
        proc.stdin.close()
        proc.wait(timeout=5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()

    line = encode_message(request(1, "ledger.digest", {"records": RECORDS}))
    startups = time_startups(args.starts)
    binding, digest = time_binding(args.calls, args.warmup)
    floor = time_floor(args.calls, args.warmup, line)

    us = 1e6
    b50, b95 = percentile(binding, 0.50) * us, percentile(binding, 0.95) * us
    f50, f95 = percentile(floor, 0.50) * us, percentile(floor, 0.95) * us
    print(
        f"bridge start-up to initialize: median {statistics.median(startups) * 1000:.1f} ms "
        f"(min {min(startups) * 1000:.1f} ms, {args.starts} starts)"
    )
    print(
        f"ledger.digest via turngate.Client: {args.calls} sequential calls, {len(RECORDS)} rows, "
        f"request {len(line)} bytes: p50 {b50:.1f} us, p95 {b95:.1f} us (digest {digest[:12]}…)"
    )
    print(f"floor, same request line through a node echo process over a pipe: p50 {f50:.1f} us, p95 {f95:.1f} us")
    print(f"ratio binding/floor: p50 {b50 / f50:.2f}x, p95 {b95 / f95:.2f}x (target <= 2x)")
    print(
        json.dumps(
            {
                "startup_ms_median": round(statistics.median(startups) * 1000, 1),
                "binding_us": {"p50": round(b50, 1), "p95": round(b95, 1)},
                "floor_us": {"p50": round(f50, 1), "p95": round(f95, 1)},
                "ratio": {"p50": round(b50 / f50, 2), "p95": round(b95 / f95, 2)},
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
