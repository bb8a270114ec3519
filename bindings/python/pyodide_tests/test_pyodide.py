"""The turngate Python API under Pyodide (in-process bridge through the JS FFI).

These functions run inside Pyodide, not under CPython's pytest: the vitest file
test-matrix/pyodide/pyodide.test.ts loads Pyodide once, mounts this directory, registers
``@turngate/bridge/pure`` as the JS module ``turngate_bridge`` and calls every ``test_*``
function here as one vitest test (a failed ``assert`` fails that test).

Expected digests were computed outside the implementation with ``printf '…' | sha256sum``
(noted next to each); texts and statuses by hand from reference §1.3.1, §2.7 and §2.19.
"""

from __future__ import annotations

import sys

import turngate
from turngate.transport_pyodide import PyodideTransport

DIGEST_WRITE_A = "6491a350c728bc945b64b3f7d2710c43fb194e0b7cd49b5a79da586a7083b5e2"
"""printf 'write|a.txt|x' | sha256sum"""

DIGEST_TWO_ROWS = "b77d2604208842b6c64db80790c8cfb32e301bf58d0aabf43a64aa7a7e463cfc"
"""printf 'edit|a.txt|d1\\nwrite|b.txt|d2' | sha256sum (rows sorted by path)"""

SHA256_HELLO_LF = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
"""printf 'hello\\n' | sha256sum"""


def raises(kind, function, *args, **kwargs):
    """The exception ``function(*args, **kwargs)`` raised; fails unless it is a ``kind``."""
    try:
        function(*args, **kwargs)
    except kind as error:
        return error
    raise AssertionError(f"{function.__name__} did not raise {kind.__name__}")


def passed_report(digest: str | None) -> dict:
    report = {
        "subject": "tests",
        "status": "passed",
        "checks": [{"id": "unit", "kind": "test", "description": "unit tests", "status": "passed", "required": True}],
    }
    if digest is not None:
        report["effect_digest"] = digest
    return report


def test_runs_under_emscripten_with_the_in_process_transport():
    assert sys.platform == "emscripten"
    assert turngate.running_under_pyodide()
    with turngate.Client() as client:
        assert isinstance(client._transport, PyodideTransport)
        assert client.protocol == "turngate.bridge.v1"
        assert "ledger.digest" in client.methods
        assert "session.create" not in client.methods


def test_effect_digest_is_the_same_bytes_as_on_cpython():
    with turngate.Client() as client:
        assert client.effect_digest([]) == ""
        assert (
            client.effect_digest([turngate.MutationRecord(tool="write", path="a.txt", content_digest="x")])
            == DIGEST_WRITE_A
        )
        rows = [
            {"tool": "write", "path": "b.txt", "content_digest": "d2"},
            {"tool": "edit", "path": "a.txt", "content_digest": "d1"},
        ]
        assert client.effect_digest(rows) == DIGEST_TWO_ROWS


def test_module_level_helpers_use_the_in_process_bridge():
    assert turngate.effect_digest([{"tool": "write", "path": "a.txt", "content_digest": "x"}]) == DIGEST_WRITE_A
    assert turngate.content_digest({"after": "hello\n"}) == SHA256_HELLO_LF
    assert isinstance(turngate.default_client()._transport, PyodideTransport)


def test_gate_allows_verified_for_a_bound_passing_report():
    ledger = {"records": [{"tool": "write", "path": "a.txt", "content_digest": "x"}]}
    outcome = turngate.decide_completion(ledger, [passed_report(DIGEST_WRITE_A)])
    assert outcome == turngate.GateOutcome(
        kind="allow", terminal=turngate.CompletionTerminal(kind="verified", effect_digest=DIGEST_WRITE_A)
    )


def test_gate_is_incomplete_for_an_unbound_report():
    ledger = {"records": [{"tool": "write", "path": "a.txt", "content_digest": "x"}]}
    outcome = turngate.decide_completion(ledger, [passed_report(None)], allow_continuation=True)
    assert outcome.kind == "incomplete"
    assert outcome.reason == "unverified_mutation"
    assert outcome.effect_digest == DIGEST_WRITE_A
    assert outcome.message == (
        f"completion gate: workspace mutation {DIGEST_WRITE_A} has no bound Passed verification and no "
        "host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this "
        "digest with required checks Passed, or obtain a host waiver for this digest."
    )


def test_gate_prefers_a_matching_waiver_and_narrative_for_an_empty_ledger():
    ledger = {"records": [{"tool": "write", "path": "a.txt", "content_digest": "x"}]}
    waiver = turngate.CompletionWaiver(effect_digest=DIGEST_WRITE_A, reason="host approved")
    outcome = turngate.decide_completion(ledger, [passed_report(DIGEST_WRITE_A)], [waiver])
    assert outcome.terminal == turngate.CompletionTerminal(kind="waived", effect_digest=DIGEST_WRITE_A)
    assert turngate.decide_completion({"records": []}).terminal == turngate.CompletionTerminal(kind="narrative")


def test_report_status_summary_and_text():
    checks = [
        {"id": "unit", "kind": "test", "description": "u", "status": "passed", "required": True},
        {"id": "lint", "kind": "lint", "description": "l", "status": "skipped"},
    ]
    assert turngate.derive_report_status(checks) == "passed"
    assert turngate.derive_report_status(checks, ["flaky network"]) == "needs_review"
    assert turngate.derive_report_status([]) == "skipped"
    summary = turngate.summarize_reports([{"subject": "s", "status": "passed", "checks": checks}])
    assert summary == turngate.VerificationSummary(
        status="passed",
        report_count=1,
        required_check_count=1,
        pending_required_check_count=0,
        failed_check_count=0,
        residual_risk_count=0,
    )
    assert turngate.format_verification_summary(summary) == "Verification passed: 1 report, 1 required check."


def test_waiver_validation_is_a_verdict():
    bad = turngate.validate_waiver({"effect_digest": DIGEST_WRITE_A, "reason": "   "})
    assert (bad.valid, bad.path, bad.message) == (False, "reason", "must not be blank")
    good = turngate.validate_waiver({"effect_digest": DIGEST_WRITE_A, "reason": " ok "})
    assert good.valid is True
    assert good.waiver == turngate.CompletionWaiver(effect_digest=DIGEST_WRITE_A, reason=" ok ")


def test_bad_input_raises_invalid_params_with_the_field_path():
    error = raises(turngate.InvalidParams, turngate.effect_digest, [{"tool": 1, "path": "a", "content_digest": ""}])
    assert error.code == "invalid_params"
    assert error.path == "records.0.tool"


def test_a_report_whose_status_differs_from_its_checks_is_rejected():
    ledger = {"records": [{"tool": "write", "path": "a.txt", "content_digest": "x"}]}
    lying = passed_report(DIGEST_WRITE_A)
    lying["checks"][0]["status"] = "failed"
    error = raises(turngate.RemoteError, turngate.decide_completion, ledger, [lying])
    assert error.code == "report_status_mismatch"
    assert error.path == "reports.0.status"


def test_sessions_are_not_supported():
    with turngate.Client() as client:
        error = raises(turngate.NotSupported, client.create_session, "/tmp")
        assert error.code == "not_supported"
        assert str(error).startswith("session.create: sessions are not available under Pyodide")


def test_facts_run_in_process_and_file_hash_snapshot_is_not_supported():
    # harn-verification.md §1.11: the same error moved from line 3 to line 4 is "unchanged"
    # (its signature "ts2304 cannot find name 'x'." carries no line number).
    before = turngate.parse_diagnostics("tsc", "a.ts(3,1): error TS2304: Cannot find name 'x'.")
    after = turngate.parse_diagnostics("tsc", "a.ts(4,1): error TS2304: Cannot find name 'x'.")
    delta = turngate.diagnostic_delta(before, after)
    assert (delta.status, delta.reason, delta.persisted) == (
        "unchanged",
        "same_diagnostic_signature_set",
        ["ts2304 cannot find name 'x'."],
    )
    with turngate.Client() as client:
        assert "facts.gate_input" in client.methods
        error = raises(turngate.NotSupported, client.file_hash_snapshot, "/tmp", ["a.txt"])
        assert str(error).startswith("facts.file_hash_snapshot: reads workspace files")
