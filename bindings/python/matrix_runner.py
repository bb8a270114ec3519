"""Test-matrix runner of the Python binding (test-matrix/README.md, "Runtimes").

    python3 bindings/python/matrix_runner.py [--runtime NAME] --vectors DIR --out FILE

Reads every ``*.json`` vector group in DIR (sorted by name), feeds each case to the
binding and writes ``{runtime, cases: [{group, id, ok, actual | error_code, error_path}]}``
to FILE. Exits 0 once FILE is written, 2 on bad arguments, 1 when the bridge cannot start.

Each case goes through the *typed* API — the ``Client`` method tagged with the case's bridge
method (``turngate._api.bridge_method``), called with the case's params as keyword
arguments; its return value is converted back to wire JSON (dataclass ``to_wire``, and the
result member re-wrapped when the method returns one member). So a field the dataclasses
dropped or a default they changed shows up as a difference. Cases whose params cannot bind
to the Python signature (unknown or missing keys: the bad-input vectors) are sent raw with
``Client.call``, which is what a Python host sending that input would do.

The same file runs under CPython (``python-cpython``: the stdio bridge) and under Pyodide
(``python-pyodide``: the in-process bridge; test-matrix/pyodide/runner.ts drives it).
Standard library only; it imports the package from ``src/`` next to this file when it is
not installed.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE / "src") not in sys.path:
    sys.path.insert(0, str(HERE / "src"))

from turngate import Client, TurngateError  # noqa: E402
from turngate._api import BridgeMethod, tagged_methods  # noqa: E402
from turngate._wire import to_wire  # noqa: E402


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality as the referee compares: key order ignored, an absent key differs from
    ``null``, ``true`` differs from ``1``, numbers by value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def load_vectors(directory: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """``[(group, cases)]`` for every ``*.json`` file of ``directory``, sorted by group."""
    groups = []
    for file in sorted(directory.glob("*.json"), key=lambda f: f.stem):
        groups.append((file.stem, json.loads(file.read_text(encoding="utf-8"))))
    return groups


def typed_api(client: Client) -> dict[str, tuple[Any, BridgeMethod]]:
    """Bridge method name → (bound Client method, its tag)."""
    return {tag.name: (getattr(client, attribute), tag) for attribute, _f, tag in tagged_methods(Client)}


def call_case(
    client: Client, api: dict[str, tuple[Any, BridgeMethod]], method: str, params: Any
) -> tuple[dict[str, Any], bool]:
    """Run one case. Returns ``({"actual": …} or {"error_code": …, "error_path": …}, typed)``
    where ``typed`` tells whether it went through the typed API (else raw ``Client.call``)."""
    entry = api.get(method)
    bound = None
    if entry is not None and isinstance(params, dict):
        try:
            bound = inspect.signature(entry[0]).bind(**params)
        except TypeError:
            bound = None
    try:
        if entry is not None and bound is not None:
            function, tag = entry
            value = to_wire(function(*bound.args, **bound.kwargs))
            return {"actual": {tag.unwrap: value} if tag.unwrap else value}, True
        return {"actual": client.call(method, params)}, False
    except TurngateError as error:
        return {"error_code": error.code, "error_path": error.path}, bound is not None


def run(runtime: str, vectors: Path, client: Client) -> dict[str, Any]:
    """Feed every case of every group to ``client``; the result-file object. Its extra key
    ``typed_cases`` counts the cases that went through the typed API."""
    api = typed_api(client)
    cases = []
    typed_cases = 0
    for group, group_cases in load_vectors(vectors):
        for case in group_cases:
            outcome, typed = call_case(client, api, case["method"], case["params"])
            typed_cases += typed
            if "actual" in outcome:
                ok = "expect" in case and json_equal(outcome["actual"], case["expect"])
            else:
                ok = outcome["error_code"] == case.get("error_code") and (
                    "error_path" not in case or outcome["error_path"] == case["error_path"]
                )
            cases.append({"group": group, "id": case["id"], "ok": ok, **outcome})
    return {"runtime": runtime, "cases": cases, "typed_cases": typed_cases}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description="turngate test-matrix runner (Python binding)")
    parser.add_argument("--runtime", default="python-cpython")
    parser.add_argument("--vectors", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        client = Client()
    except TurngateError as error:
        print(f"matrix_runner: cannot start the bridge: {error}", file=sys.stderr)
        return 1
    with client:
        results = run(args.runtime, args.vectors, client)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    total, typed = len(results["cases"]), results["typed_cases"]
    failed = sum(1 for case in results["cases"] if not case["ok"])
    print(
        f"{args.runtime} runner: {total} cases ({typed} through the typed API, {total - typed} raw), "
        f"{failed} not as expected",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
