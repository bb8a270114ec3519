"""A failing check's ``failure_digest`` through the Python binding against the real bridge
(issue 34 item 1: every channel names the failing test with its assertion, then a tail)."""

from __future__ import annotations

import turngate

TAP = "\n".join(
    [
        "TAP version 13",
        "ok 1 - adds",
        "not ok 2 - subtracts",
        "  ---",
        "    expected: 1",
        "    actual:   2",
        "  ...",
        "1..2",
    ]
)


def test_a_failing_check_names_its_failing_test_and_a_passing_one_has_none(bridge, repo):
    (repo / "tap.txt").write_text(TAP + "\n")
    with bridge.create_session(repo) as session:
        result = session.verify_commands(
            "tests",
            [
                turngate.VerificationCommand(id="ok", kind="test", description="passes", command="true", required=True),
                turngate.VerificationCommand(
                    id="tape", kind="test", description="tape", command="cat tap.txt; exit 1", required=True
                ),
            ],
        )
    ok, tape = result.runs
    assert ok.failure_digest == []
    assert tape.status == "failed"
    assert tape.failure_digest[0].startswith("failing tests (1 of 2; full log: file://")
    assert tape.failure_digest[1:] == [
        "  ✗ subtracts",
        "      expected: 1",
        "      actual: 2",
        "last 8 lines:",
        "| TAP version 13",
        "| ok 1 - adds",
        "| not ok 2 - subtracts",
        "|   ---",
        "|     expected: 1",
        "|     actual:   2",
        "|   ...",
        "| 1..2",
    ]
