"""``facts.parse_test_results`` through the real bridge (issue #16): typed results with
exact values, the module-level helper, and the typed errors."""

from __future__ import annotations

import pytest

import turngate
from turngate import ParsedTest, ParsedTestResults, TestSuiteError, TestTotals

GO_EVENTS = "\n".join(
    [
        '{"Action":"run","Package":"p","Test":"TestOk"}',
        '{"Action":"pass","Package":"p","Test":"TestOk","Elapsed":0.5}',
        '{"Action":"run","Package":"p","Test":"TestBad"}',
        '{"Action":"output","Package":"p","Test":"TestBad","Output":"=== RUN   TestBad\\n"}',
        '{"Action":"output","Package":"p","Test":"TestBad","Output":"    p_test.go:7: größe\\n"}',
        '{"Action":"fail","Package":"p","Test":"TestBad","Elapsed":0}',
        '{"Action":"fail","Package":"q","FailedBuild":"q [q.test]"}',
    ]
)


def test_go_test_json_gives_typed_tests_totals_and_suite_errors(bridge: turngate.Client) -> None:
    parsed = bridge.parse_test_results("go_test_json", GO_EVENTS)
    assert parsed == ParsedTestResults(
        schema="turngate.parsed_test_results.v1",
        format="go_test_json",
        tests=[
            ParsedTest(
                id="p::TestOk", name="TestOk", suite="p", file=None, status="passed", duration_ms=500, message=None
            ),
            ParsedTest(
                id="p::TestBad",
                name="TestBad",
                suite="p",
                file=None,
                status="failed",
                duration_ms=0,
                message="p_test.go:7: größe",
            ),
        ],
        totals=TestTotals(tests=2, passed=1, failed=1, skipped=0, errored=0),
        errors=[TestSuiteError(suite="q", file=None, message="build failed")],
        unparsed=[],
    )


def test_module_helper_and_typed_errors(bridge: turngate.Client) -> None:
    parsed = turngate.parse_test_results("tap", "ok 1 - a\nnot ok 2 - b # TODO later\n1..2\n")
    assert [(t.id, t.status, t.message) for t in parsed.tests] == [("a", "passed", None), ("b", "skipped", "later")]
    with pytest.raises(turngate.RemoteError) as info:
        bridge.parse_test_results("junit", "<testsuite>")
    assert (info.value.code, info.value.path) == ("test_results_parse_error", "text")
    with pytest.raises(turngate.InvalidParams) as bad:
        bridge.parse_test_results("xunit", "x")  # type: ignore[arg-type]
    assert bad.value.path == "format"


def test_a_check_with_results_carries_counts_and_failing_ids(bridge: turngate.Client, repo) -> None:
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("a\n")
        session.observe_workspace()
        declared = turngate.types.VerificationCommand(
            id="unit",
            kind="test",
            description="unit tests",
            command="printf 'ok 1 - one\\nnot ok 2 - größe\\n1..2\\n' > {results}",
            required=True,
            results=turngate.types.TestResultsDeclaration(format="tap"),
        )
        result = session.verify_commands("tests", [declared], bind=True)
        check = result.report.checks[0]
        assert (check.status, check.residual_risk) == ("failed", "exit 0 but 1 test failed")
        assert check.tests == turngate.types.CheckTestCounts(passed=1, failed=1, skipped=0, errored=0)
        assert check.failing_tests == ["größe"]
