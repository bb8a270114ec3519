"""Verification facts through the real bridge (issue 7 item 4): typed results with exact values.

FNV-1a 64 values are Harn's reference vectors (harn-verification.md §3.1) or the §3.1 loop
run by hand in Python below (``fnv1a64``, independent of the bridge's TypeScript); every other
expected value is derived from the reference rules (§1.2, §1.5, §1.11, §1.12, §3.7) and the
rung rule of docs/design.md §4, as noted next to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import turngate
from turngate import (
    DeltaSide,
    DiagnosticNormalization,
    ParsedDiagnostic,
    RungComparison,
    UnparsedInput,
)

FNV_EMPTY = "14695981039346656037"
FNV_HELLO_WORLD = "8618312879776256743"

TS2322 = "Type 'string' is not assignable to type 'number'."
SIG_TS2322 = "ts2322 type 'string' is not assignable to type 'number'."
"""§3.7: code, then message, joined by a space and lowercased."""
SIG_TS2304 = "ts2304 cannot find name 'foo'."

BEFORE = f"src/a.ts(3,5): error TS2322: {TS2322}\nsrc/b.ts(10,1): error TS2304: Cannot find name 'foo'.\n"
AFTER = f"\nsrc/a.ts(4,5): error TS2322: {TS2322}\nFound 1 error.\n"
"""After fixing b.ts and inserting a blank line above a.ts's error (now on line 4)."""

DEFAULT_NORMALIZATION = DiagnosticNormalization(
    lowercase=True,
    strip_ansi=True,
    strip_locations=True,
    strip_temp_paths=True,
    collapse_whitespace=True,
    include_path=False,
    include_code=True,
    include_severity=False,
    max_chars=4000,
    replacements=[],
    ignore_patterns=[],
    strip_patterns=[],
)


def fnv1a64(data: bytes) -> str:
    """Reference §3.1 by hand: XOR each byte in, multiply by the prime mod 2**64."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    return str(h)


def test_the_hand_rolled_fnv_matches_harns_reference_vectors():
    assert (fnv1a64(b""), fnv1a64(b"hello world")) == (FNV_EMPTY, FNV_HELLO_WORLD)


def test_file_hash_snapshot_then_staleness_after_an_edit(bridge, tmp_path: Path):
    (tmp_path / "a.txt").write_bytes(b"hello world")
    (tmp_path / "b.txt").write_bytes("héllo".encode())
    bound = bridge.file_hash_snapshot(tmp_path, ["a.txt", "b.txt", "gone.txt"])
    assert (bound.seq, bound.algorithm, bound.missing) == (0, "fnv1a64", ["gone.txt"])
    assert bound.snapshot == {"a.txt": FNV_HELLO_WORLD, "b.txt": fnv1a64("héllo".encode())}
    assert [(f.path, f.readable, f.hash_source, f.size, f.known) for f in bound.files] == [
        ("a.txt", True, "disk", 11, False),
        ("b.txt", True, "disk", 6, False),
        ("gone.txt", False, "missing", None, False),
    ]
    assert bridge.snapshot_staleness(bound.snapshot, bound.to_wire()).status == "bound_fresh"

    (tmp_path / "b.txt").write_bytes(b"")
    current = bridge.file_hash_snapshot(str(tmp_path), ["a.txt", "b.txt"])
    assert current.snapshot == {"a.txt": FNV_HELLO_WORLD, "b.txt": FNV_EMPTY}
    stale = bridge.snapshot_staleness(bound.snapshot, current.snapshot)
    assert stale == turngate.SnapshotStaleness(
        schema="harn.verification.snapshot_staleness.v1",
        status="bound_stale",
        stale=True,
        fresh=False,
        staleFiles=["b.txt"],
        stale_files=["b.txt"],
        changed_files=["b.txt"],
        advisory=True,
        reason="snapshot superseded or unverifiable for 1 file(s); re-check before trusting",
    )


def test_file_hash_snapshot_sha256_and_bad_paths(bridge, tmp_path: Path):
    (tmp_path / "a.txt").write_bytes(b"hello world")
    snap = bridge.file_hash_snapshot(tmp_path, ["a.txt"], "sha256")
    # printf 'hello world' | sha256sum
    assert snap.snapshot == {"a.txt": "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"}
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.file_hash_snapshot(tmp_path, [])
    assert info.value.path == "paths"
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.file_hash_snapshot(tmp_path / "a.txt", ["a.txt"])
    assert info.value.path == "root"


def test_diagnostic_classify_compares_hashes_as_typed_json(bridge):
    got = bridge.diagnostic_classify(
        {"rung": " R2 ", "rowId": 7, "at": 1700000000, "snapshot": {"a.ts": "1", "b.ts": "2"}},
        {"a.ts": "1", "b.ts": 2},
    )
    assert got == turngate.DiagnosticClassification(
        rung="R2",
        rowId=7,
        status="bound_stale",
        staleFiles=["b.ts"],
        feedsGates=False,
        advisory=True,
        reason="snapshot superseded for 1 file(s); re-check before trusting",
    )
    assert bridge.diagnostic_classify(None).to_wire() == {
        "status": "unbound",
        "staleFiles": [],
        "feedsGates": False,
        "advisory": True,
        "reason": "diagnostic carries no rung+timestamp+snapshot binding; advisory only",
    }


def test_parse_two_tsc_outputs_then_delta_is_advanced_with_progress_credit():
    before = turngate.parse_diagnostics("tsc", BEFORE)
    after = turngate.parse_diagnostics("tsc", AFTER)
    assert after.diagnostics == [
        ParsedDiagnostic(
            path="src/a.ts", line=4, column=5, severity="error", code="TS2322", message=TS2322, source="tsc"
        )
    ]
    assert after.unparsed == [
        UnparsedInput(line=3, pointer=None, text="Found 1 error.", reason="not a tsc --pretty false diagnostic line")
    ]
    delta = turngate.diagnostic_delta(before, after)
    assert (delta.status, delta.progress_credit, delta.reason) == ("advanced", True, "diagnostic_signature_set_changed")
    assert (delta.removed, delta.added, delta.persisted, delta.count_delta) == ([SIG_TS2304], [], [SIG_TS2322], -1)
    assert delta.previous == DeltaSide(count=2, feedsGates=True, feeds_gates=True, signatures=[SIG_TS2304, SIG_TS2322])
    assert delta.current == DeltaSide(count=1, feedsGates=True, feeds_gates=True, signatures=[SIG_TS2322])
    assert delta.normalization == DEFAULT_NORMALIZATION
    # The line shift alone (same error on line 3, then on line 4) changes nothing.
    shifted = turngate.diagnostic_delta(turngate.parse_diagnostics("tsc", BEFORE.splitlines()[0]), after)
    assert (shifted.status, shifted.reason, shifted.count_delta) == ("unchanged", "same_diagnostic_signature_set", 0)


def test_delta_options_and_their_errors(bridge):
    stripped = bridge.diagnostic_delta(None, ["error at /tmp/build-1/x.ts: boom"], {"strip_temp_paths": False})
    # §3.7 steps 4–7 with temp paths kept: lowercase; "/tmp/build-1/x.ts: boom" has no ":<digits>".
    assert stripped.current.signatures == ["error at /tmp/build-1/x.ts: boom"]
    assert (stripped.status, stripped.reason) == ("initialized", "no_prior_gate_bearing_failure")
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.diagnostic_delta([], [], {"lowercase": "yes"})
    assert info.value.path == "options.lowercase"
    with pytest.raises(turngate.RemoteError) as remote:
        bridge.diagnostic_delta([], [], {"replacements": ["(?<=a)b"]})
    assert (remote.value.code, remote.value.path) == ("invalid_regex", "options.replacements.0")


def test_normalization_keeps_null_knobs_and_unknown_row_keys(bridge):
    # §3.7: row configs merge over the defaults key by key, unknown keys carried along.
    delta = bridge.diagnostic_delta([], [], {"row": {"diagnostic_delta": {"lowercase": None, "custom": 1}}})
    assert delta.normalization.lowercase is None
    assert delta.normalization.wire_extra() == {"custom": 1}
    assert delta.normalization.to_wire() == {**DEFAULT_NORMALIZATION.to_wire(), "lowercase": None, "custom": 1}


def test_gate_input_lower_rung_green_is_advisory(bridge):
    hashes = {"src/a.ts": "12"}
    failure = {"rung": "R3", "at": "t1", "snapshot": hashes, "diagnostics": [{"code": "TS2322", "message": TS2322}]}
    green = {"rung": "R1", "at": "t2", "snapshot": hashes, "success": True}
    gate = bridge.gate_input(failure, green, hashes)
    # Delta: cleared with credit (success over a fresh gate-bearing failure); rank 1 < 3 → refused.
    assert (gate.status, gate.reason, gate.feedsGates, gate.progress_credit) == (
        "advisory",
        "lower_rung_green",
        False,
        False,
    )
    assert (gate.gate_bearing_failure, gate.blocks_completion, gate.delta.status) == (True, True, "cleared")
    assert gate.rung_comparison == RungComparison(
        previous_rung="R3", current_rung="R1", previous_rank=3, current_rank=1, outcome="lower"
    )
    same = turngate.gate_input(failure, {**green, "rung": "R4"}, hashes)
    assert (same.status, same.progress_credit, same.rung_comparison.outcome) == ("cleared", True, "same_or_higher")


def test_parse_errors_are_typed(bridge):
    ruff = [
        {
            "code": "F401",
            "message": "`os` imported but unused",
            "filename": "app.py",
            "location": {"row": 1, "column": 8},
        }
    ]
    parsed = bridge.parse_diagnostics("ruff", json.dumps(ruff))
    assert parsed.diagnostics == [
        ParsedDiagnostic(
            path="app.py",
            line=1,
            column=8,
            severity="error",
            code="F401",
            message="`os` imported but unused",
            source="ruff",
        )
    ]
    with pytest.raises(turngate.RemoteError) as info:
        bridge.parse_diagnostics("sarif", "{}")
    assert (info.value.code, info.value.path) == ("diagnostic_parse_error", "text")
    with pytest.raises(turngate.InvalidParams) as bad:
        bridge.parse_diagnostics("mypy", "")  # type: ignore[arg-type]
    assert bad.value.path == "format"
