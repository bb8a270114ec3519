"""Verification facts II through the real bridge (issue 14): the ladder plan, the HUD text,
recording a check, toolchain and warm-state facts, as typed results with exact values
derived from harn-verification.md §1.4, §1.6, §1.7, §1.9, §3.3, §4.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import turngate
from turngate.facts_profiles import LadderPlan, RunCheckResult, ToolchainFact

PROFILES = {
    "schemaVersion": 1,
    "rows": [
        {"id": "lint", "check": {"rung": "R1", "command": "tx lint", "resourceClass": "cheap"},
         "timings": {"warmMs": {"p50": 900, "p95": 1500, "p99": 1600}}},
        {"id": "test", "check": {"rung": 4, "command": "tx test"}, "timings": {"warmMs": {"p95": 61000}}},
    ],
}


def test_ladder_plan_and_hud_text(bridge: turngate.Client):
    plan = bridge.ladder_plan({}, {"profiles": PROFILES, "max_rung": "3"})
    assert isinstance(plan, LadderPlan)
    assert [(e.row_id, e.rung, e.p95_ms, e.sort_key) for e in plan.selected] == [("lint", "R1", 1500, [1, 0, 1500, 0, 0])]
    assert [(s.row_id, s.reason) for s in plan.skipped] == [("test", "above_max_rung")]
    text = bridge.hud_text({"started_ms": 0}, {"profiles": PROFILES, "now_ms": 61000})
    assert text == "[verification]\nelapsed: 1m1s\nnext check: R1 tx lint - est 1s (p95 warm)\nfull verify: R4 tx test - est 1m1s (p95 warm)"


def test_record_check_result_is_a_pure_reducer(bridge: turngate.Client):
    out = bridge.record_check_result("lint", {"exit_code": 0, "duration_ms": 20}, {"profiles": PROFILES, "now_ms": 0})
    assert out.observation.exit == 0 and out.observation.durationMs == 20
    assert out.row is not None and out.row["timings"]["samples"] == 1
    assert out.profiles is not None and out.profiles["updatedAt"] == "1970-01-01T00:00:00Z"


def test_run_check_records_into_the_store(bridge: turngate.Client, tmp_path: Path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "verification-profiles.json").write_text(json.dumps({"rows": [{"id": "unit"}]}))
    (tmp_path / "a.txt").write_text("hello world")
    out = bridge.run_check(str(tmp_path), str(store), "unit", [sys.executable, "-c", "print('E1'); raise SystemExit(3)"],
                           {"snapshot_paths": ["a.txt"]})
    assert isinstance(out, RunCheckResult)
    assert (out.result.status, out.observation.exit, out.observation.failureSignature) == ("failed", 3, "E1")
    assert out.snapshot is not None and out.snapshot.snapshot == {"a.txt": "8618312879776256743"}
    assert out.row is not None and out.row["lastRun"]["exit"] == 3
    with pytest.raises(turngate.RemoteError) as info:
        bridge.run_check(str(tmp_path), str(store), "unit", ["true"], {"command_options": {"background": True}})
    assert info.value.code == "background_not_supported"


def test_toolchain_and_warm_state(bridge: turngate.Client, tmp_path: Path):
    facts = bridge.toolchain(str(tmp_path), [{"id": "py", "versionProbe": [sys.executable, "--version"]},
                                             {"id": "ghost", "probe": ["turngate-no-such-binary-xyz"]}])
    assert all(isinstance(f, ToolchainFact) for f in facts)
    v = sys.version_info
    assert [(f.id, f.available, f.version) for f in facts] == [("py", True, f"{v.major}.{v.minor}.{v.micro}"), ("ghost", False, None)]
    warm = bridge.warm_state(str(tmp_path), [{"id": "w", "warmMode": {"ready": False}}])
    assert [(f.id, f.ready, f.timing_kind, f.configured) for f in warm] == [("w", False, "cold", True)]


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def test_background_check_and_warm_state_lifecycle(bridge: turngate.Client, tmp_path: Path):
    import time

    store = tmp_path / "store"
    store.mkdir()
    (store / "verification-profiles.json").write_text(json.dumps({"rows": [{"id": "bg"}]}))
    receipt = bridge.start_check(str(tmp_path), "bg", ["sh", "-c", "sleep 0.2; echo late; exit 6"])
    done = bridge.finish_check(str(store), receipt)
    assert done.observation is not None and (done.observation.exit, done.observation.failureSignature) == (6, "late")
    assert done.row is not None and done.row["lastRun"]["exit"] == 6

    row = {"id": "srv", "warmMode": {"readyProbe": ["test", "-f", "never"],
                                      "startCommand": {"mode": "shell", "command": "sleep 60 & echo $! > child.pid; wait"}}}
    started = bridge.start_warm_state(str(tmp_path), row)
    assert started.status == "starting" and started.started is not None
    reused = bridge.start_warm_state(str(tmp_path), row, {"existing": started.to_wire()})
    assert (reused.status, reused.reused, reused.handle_id) == ("starting", True, started.handle_id)
    deadline = time.monotonic() + 5
    while not (tmp_path / "child.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    child = int((tmp_path / "child.pid").read_text())
    assert _alive(started.started.pid) and _alive(child)
    down = bridge.teardown_warm_state(str(tmp_path), started)
    assert down.cancelled is True
    deadline = time.monotonic() + 5
    while (_alive(started.started.pid) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(started.started.pid) and not _alive(child)
    assert bridge.teardown_warm_state(str(tmp_path), started).cancelled is False


def test_ladder_matches_and_hud_read_the_store_run_check_records_into(bridge: turngate.Client, tmp_path: Path):
    """issue 35 item 4: store_dir reads the store seen from options["dir"] (HUD: else state["dir"])."""
    store = tmp_path / "store"
    core = store / "verification-profiles.d" / "packages" / "core"
    core.mkdir(parents=True)
    (store / "verification-profiles.json").write_text(json.dumps(PROFILES))
    (core / "verification-profiles.json").write_text(json.dumps({
        "schemaVersion": 1,
        "rows": [{"id": "core-unit", "scope": {"language": "py"}, "check": {"rung": "R0", "command": "tx core"}}],
    }))
    bridge.run_check(str(tmp_path), str(store), "lint", ["true"])
    plan = bridge.ladder_plan({}, {"max_rung": "3"}, store_dir=str(store))
    assert [(e.row_id, e.row["timings"]["samples"]) for e in plan.selected] == [("lint", 1)]
    deeper = bridge.ladder_plan({"language": "py"}, {"dir": "packages/core"}, store_dir=str(store))
    assert [e.row_id for e in deeper.selected] == ["core-unit"]
    matches = bridge.profile_matches({"language": "PY"}, {"dir": "packages/core"}, store_dir=str(store))
    assert [(m.row["id"], m.specificity) for m in matches] == [("core-unit", 4)]
    state = {"started_ms": 0, "dir": "packages/core", "language": "py"}
    model = bridge.hud_model(state, {"now_ms": 61000}, store_dir=str(store))
    assert model.next_check is not None and model.next_check.row_id == "core-unit"
    text = bridge.hud_text(state, {"now_ms": 61000}, store_dir=str(store))
    assert text.splitlines()[:3] == ["[verification]", "elapsed: 1m1s", "next check: R0 tx core - est 16m39s (p95 warm)"]
    with pytest.raises(turngate.InvalidParams) as bad:
        bridge.ladder_plan({}, {"dir": "../outside"}, store_dir=str(store))
    assert bad.value.path == "options.dir"
    with pytest.raises(turngate.InvalidParams) as both:
        bridge.ladder_plan({}, {"profiles": PROFILES}, store_dir=str(store))
    assert both.value.path == "options.profiles"
