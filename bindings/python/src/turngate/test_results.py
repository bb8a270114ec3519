"""What the tests actually said (issue #16): ``facts.parse_test_results`` as a
:class:`~turngate.Client` method (mixed in from :class:`TestResultsMethods`, pure, so also
under Pyodide) and its result as dataclasses. Field names are the wire keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._api import bridge_method
from ._wire import WireModel

TestResultFormat = Literal["junit", "tap", "ctrf", "go_test_json", "jest_json", "pytest_reportlog", "libtest"]
"""Results formats :meth:`TestResultsMethods.parse_test_results` reads."""

TestStatus = Literal["passed", "failed", "skipped", "errored"]
"""Outcome of one parsed test; ``errored``: it could not run to a verdict (setup error, JUnit ``<error>``)."""


@dataclass(kw_only=True)
class ParsedTest(WireModel):
    """One test: ``id`` is unique within the result and stable across runs (the tool's own id
    where it has one, else ``suite::name``); ``suite`` the enclosing suites (``" > "``-joined),
    ``file`` when the tool names it, ``duration_ms`` in milliseconds (``None`` when the tool
    gives none), ``message`` the failure, error or skip text (capped at 4,000 characters)."""

    __test__ = False  # not a pytest test class

    id: str
    name: str
    suite: str | None
    file: str | None
    status: TestStatus
    duration_ms: float | None
    message: str | None


@dataclass(kw_only=True)
class TestTotals(WireModel):
    """Counts of the parsed tests by status; ``tests`` is their number."""

    __test__ = False

    tests: int
    passed: int
    failed: int
    skipped: int
    errored: int


@dataclass(kw_only=True)
class TestSuiteError(WireModel):
    """A failure no single test carries (a collection or build error, an unhandled error, a
    failed hook, counts that do not add up): treat it like a failed test."""

    __test__ = False

    suite: str | None
    file: str | None
    message: str


@dataclass(kw_only=True)
class UnparsedTestInput(WireModel):
    """Input the parser could not read: its 1-based ``line`` (line formats) or JSON
    ``pointer`` (document formats), the ``text`` and the ``reason``."""

    line: int | None
    pointer: str | None
    text: str
    reason: str


@dataclass(kw_only=True)
class ParsedTestResults(WireModel):
    """``turngate.parsed_test_results.v1``: the tests, their totals, suite-level ``errors``
    and the ``unparsed`` input. A run is clean only with no failed or errored test, no
    ``errors`` and at least one test — pair it with the runner's exit status."""

    schema: Literal["turngate.parsed_test_results.v1"]
    format: TestResultFormat
    tests: list[ParsedTest]
    totals: TestTotals
    errors: list[TestSuiteError]
    unparsed: list[UnparsedTestInput]


class TestResultsMethods:
    """The ``facts.parse_test_results`` method of :class:`~turngate.Client` (a mixin: it needs
    the client's ``_send``)."""

    __test__ = False

    if TYPE_CHECKING:
        _send: Callable[..., Any]

    @bridge_method("facts.parse_test_results")
    def parse_test_results(
        self, format: TestResultFormat, text: str, *, timeout: float | None = None
    ) -> ParsedTestResults:
        """Parse a test runner's results file or output.

        ``format``: ``junit`` (surefire, pytest ``--junitxml``, jest-junit, gotestsum, node's
        junit reporter), ``tap`` (13/14), ``ctrf``, ``go_test_json`` (``go test -json``),
        ``jest_json`` (Jest ``--json``, Vitest ``--reporter=json``), ``pytest_reportlog``
        (``pytest --report-log``), ``libtest`` (``cargo test`` text). Raises
        :class:`InvalidParams` (``path`` ``format``) for an unknown format and
        :class:`RemoteError` ``test_results_parse_error`` (``path`` ``"text"``) for empty text
        or a malformed, truncated or too deeply nested XML/JSON document.
        """
        params = {"format": format, "text": text}
        return ParsedTestResults.from_wire(self._send("facts.parse_test_results", params, timeout=timeout))


def parse_test_results(format: TestResultFormat, text: str) -> ParsedTestResults:
    """Parsed test results on the shared default client; see :meth:`TestResultsMethods.parse_test_results`."""
    from .helpers import default_client

    return default_client().parse_test_results(format, text)


__all__ = [
    "ParsedTest",
    "ParsedTestResults",
    "TestResultFormat",
    "TestResultsMethods",
    "TestStatus",
    "TestSuiteError",
    "TestTotals",
    "UnparsedTestInput",
    "parse_test_results",
]
