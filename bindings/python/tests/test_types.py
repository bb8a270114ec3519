"""Dataclasses ↔ wire JSON (turngate._wire, turngate.types), and what the typed API puts
on the wire (checked with a recording transport, no bridge)."""

from __future__ import annotations

import math
from typing import Any

import pytest

import turngate
from turngate._wire import to_wire, wire_list


class RecordingTransport:
    """A transport that records each call and answers from a table (method → result)."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = {"initialize": {"protocol": "turngate.bridge.v1", "version": "t", "methods": []}, **answers}
        self.calls: list[tuple[str, Any, float | None]] = []

    def call(self, method: str, params: Any = None, *, timeout: float | None = None, on_progress: Any = None) -> Any:
        self.calls.append((method, params, timeout))
        return self.answers[method]

    def close(self) -> None:
        self.calls.append(("<close>", None, None))


CHECK = {"id": "unit", "kind": "test", "description": "unit tests", "status": "passed", "required": True}
RUN = {
    "id": "t",
    "status": "passed",
    "exit_code": 0,
    "signal": None,
    "timed_out": False,
    "aborted": False,
    "timeout_ms": 120000,
    "duration_ms": 12.5,
    "output": "ok\n",
    "total_bytes": 3,
    "truncated": False,
    "failure_digest": [],
}
REPORT = {"schema": "verification_report.v1", "subject": "tests", "status": "passed", "checks": [CHECK]}


def test_report_from_wire_builds_nested_dataclasses():
    report = turngate.VerificationReport.from_wire({**REPORT, "effect_digest": "d"})
    assert report == turngate.VerificationReport(
        subject="tests",
        status="passed",
        checks=[
            turngate.VerificationCheck(id="unit", kind="test", description="unit tests", status="passed", required=True)
        ],
        effect_digest="d",
    )


def test_to_wire_omits_none_and_keeps_defaults():
    check = turngate.VerificationCheck(id="c", kind="lint", description="d", status="skipped")
    assert check.to_wire() == {"id": "c", "kind": "lint", "description": "d", "status": "skipped", "required": False}
    waiver = turngate.CompletionWaiver(effect_digest="d", reason="r")
    assert waiver.to_wire() == {"effect_digest": "d", "reason": "r"}


def test_a_missing_required_field_is_a_protocol_error_naming_it():
    bad = {**REPORT, "checks": [{k: v for k, v in CHECK.items() if k != "status"}]}
    with pytest.raises(turngate.ProtocolError) as info:
        turngate.VerificationReport.from_wire(bad)
    assert info.value.code == "bad_result"
    assert str(info.value) == "checks.0.status: required field is missing"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"report_count": True}, "report_count: expected int, got bool"),
        ({"status": "green"}, "status: expected one of ['passed', 'failed', 'needs_review', 'skipped'], got 'green'"),
        ({"pending_subjects": "a"}, "pending_subjects: expected a list, got str"),
        ({"failed_subjects": ["a", 2]}, "failed_subjects.1: expected str, got int"),
    ],
)
def test_a_wrong_type_is_a_protocol_error_naming_the_field(data, message):
    summary = {
        "status": "passed",
        "report_count": 1,
        "required_check_count": 1,
        "pending_required_check_count": 0,
        "failed_check_count": 0,
        "residual_risk_count": 0,
        **data,
    }
    with pytest.raises(turngate.ProtocolError) as info:
        turngate.VerificationSummary.from_wire(summary)
    assert str(info.value) == message


def test_gate_outcome_union_reads_each_variant():
    allow = turngate.GateOutcome.from_wire({"kind": "allow", "terminal": {"kind": "verified", "effect_digest": "d"}})
    assert allow.terminal == turngate.CompletionTerminal(kind="verified", effect_digest="d")
    blocked = turngate.GateOutcome.from_wire(
        {"kind": "incomplete", "reason": "open_children", "message": "m", "task_ids": ["t1"]}
    )
    assert (blocked.reason, blocked.task_ids, blocked.terminal) == ("open_children", ["t1"], None)


def test_to_wire_converts_nested_values_and_wire_list_rejects_non_lists():
    record = turngate.MutationRecord(tool="write", path="a", content_digest="x")
    assert to_wire({"records": (record,)}) == {"records": [{"tool": "write", "path": "a", "content_digest": "x"}]}
    with pytest.raises(turngate.InvalidParams) as info:
        wire_list("a.txt", "records")
    assert (info.value.path, str(info.value)) == ("records", "records: expected a list, got str")


def test_stateless_methods_send_every_param_with_its_wire_default():
    transport = RecordingTransport({"gate.decide": {"kind": "allow", "terminal": {"kind": "narrative"}}})
    client = turngate.Client(transport=transport, timeout=12.5)
    outcome = client.decide_completion(turngate.LedgerState(records=[]))
    assert outcome.terminal == turngate.CompletionTerminal(kind="narrative")
    assert transport.calls[-1] == (
        "gate.decide",
        {
            "ledger": {"records": [], "open_children": [], "observation_incomplete": False},
            "reports": [],
            "waivers": [],
            "allow_continuation": False,
            "observations": [],
        },
        12.5,
    )


def test_session_methods_send_their_session_id_and_params():
    report_wire = {**REPORT, "effect_digest": "d"}
    transport = RecordingTransport(
        {
            "session.create": {"session_id": "session-7"},
            "session.record_reports": {"recorded": 1},
            "session.decide": {"kind": "allow", "terminal": {"kind": "verified", "effect_digest": "d"}},
            "session.verify_commands": {
                "report": report_wire,
                "binding": {"bound": True, "effect_digest": "d"},
                "runs": [RUN],
                "isolation": {"mode": "in-place", "requested": "in-place", "available": True},
            },
            "session.close": {},
        }
    )
    client = turngate.Client(transport=transport)
    with client.create_session("/work/repo") as session:
        assert session.id == "session-7"
        assert session.record_verification_reports(report_wire) == 1
        command = turngate.VerificationCommand(id="t", kind="test", description="d", command="true", required=True)
        result = session.verify_commands("tests", [command], bind=True)
        assert result.report.effect_digest == "d"
        assert result.binding == turngate.ReportBinding(bound=True, effect_digest="d")
        assert result.runs[0].exit_code == 0 and result.runs[0].signal is None
        assert result.isolation == turngate.Isolation(mode="in-place", requested="in-place", available=True)
        assert result.to_wire()["runs"] == [RUN]  # required-nullable "signal" stays null
        assert session.decide().terminal == turngate.CompletionTerminal(kind="verified", effect_digest="d")
    sent = [(method, params, timeout) for method, params, timeout in transport.calls[1:]]
    assert sent == [
        ("session.create", {"root": "/work/repo", "waivers": []}, 30.0),
        ("session.record_reports", {"session_id": "session-7", "reports": [report_wire]}, 30.0),
        (
            "session.verify_commands",
            {
                "session_id": "session-7",
                "subject": "tests",
                "commands": [
                    {
                        "id": "t",
                        "kind": "test",
                        "description": "d",
                        "command": "true",
                        "required": True,
                        "expect_exit": 0,
                    }
                ],
                "bind": True,
            },
            None,  # no client-side limit: each command has its own timeout
        ),
        ("session.decide", {"session_id": "session-7"}, 30.0),
        ("session.close", {"session_id": "session-7"}, 30.0),
    ]


def test_per_call_timeout_overrides_and_inf_means_no_limit():
    transport = RecordingTransport({"ledger.digest": {"effect_digest": ""}})
    client = turngate.Client(transport=transport)
    client.effect_digest([], timeout=0.5)
    client.effect_digest([], timeout=math.inf)
    assert [timeout for _m, _p, timeout in transport.calls[1:]] == [0.5, None]


def test_a_result_without_the_expected_member_is_a_protocol_error():
    client = turngate.Client(transport=RecordingTransport({"ledger.digest": {"digest": "x"}}))
    with pytest.raises(turngate.ProtocolError) as info:
        client.effect_digest([])
    assert info.value.code == "bad_result"


def test_record_reports_rejects_a_string():
    transport = RecordingTransport({"session.create": {"session_id": "s"}})
    session = turngate.Client(transport=transport).create_session("/r")
    with pytest.raises(turngate.InvalidParams) as info:
        session.record_verification_reports("report.json")
    assert info.value.path == "reports"
