"""Parity between the Python binding and packages/bridge/schema/protocol.json (issue 4 item 4).

Fails when:
* a bridge method has no Python method (or a Python method names a method the bridge lacks);
* a Python method's parameters differ from the method's params schema: names, which are
  required, and defaults;
* a dataclass field differs from the JSON Schema it is read from or sent as: names,
  required/optional, defaults, JSON types, and enum/const values;
* ``required`` does not default to ``false`` or ``expect_exit`` to ``0`` on either side.

Dataclasses are found by walking the type hints of every tagged method (params and return
value) against the method's params/result schema, so every use of a type is checked; a test
also asserts that every dataclass in ``turngate.types`` was reached.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

import pytest
from support import PROTOCOL_JSON

import turngate.types as tt
from turngate import Client, Session
from turngate._api import IMPLICIT_PARAMS, PYTHON_ONLY_PARAMS, TRANSPORT_METHODS, tagged_methods
from turngate._wire import WireModel

PROTOCOL = json.loads(PROTOCOL_JSON.read_text(encoding="utf-8"))
MISSING = object()


# ---------------------------------------------------------------------------- schema views


def variants(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The alternatives of a oneOf/anyOf schema, flattened; ``[schema]`` otherwise."""
    options = schema.get("oneOf") or schema.get("anyOf")
    if not options:
        return [schema]
    return [leaf for option in options for leaf in variants(option)]


def object_view(schema: Mapping[str, Any]) -> tuple[dict[str, Mapping[str, Any]], set[str]]:
    """Properties and required names of an object schema; for a union of objects, the union
    of properties (merged per name) and the names required in *every* variant."""
    objects = [v for v in variants(schema) if v.get("type") == "object"]
    assert objects, f"expected an object schema, got {schema}"
    merged: dict[str, list[Mapping[str, Any]]] = {}
    required: set[str] | None = None
    for option in objects:
        for name, prop in option.get("properties", {}).items():
            merged.setdefault(name, []).append(prop)
        names = set(option.get("required", []))
        required = names if required is None else required & names
    props = {name: (parts[0] if len(parts) == 1 else {"anyOf": parts}) for name, parts in merged.items()}
    return props, required or set()


def schema_default(schema: Mapping[str, Any]) -> Any:
    defaults = [v["default"] for v in [schema, *variants(schema)] if "default" in v]
    return defaults[0] if defaults else MISSING


def json_types(schema: Mapping[str, Any]) -> set[str]:
    """JSON types a schema admits ("integer" folded into "number"); {} = anything."""
    found: set[str] = set()
    for option in variants(schema):
        kind = option.get("type")
        if isinstance(kind, list):
            found.update(kind)
        elif isinstance(kind, str):
            found.add(kind)
        elif "const" in option:
            found.add(type_of_value(option["const"]))
        elif "enum" in option:
            found.update(type_of_value(v) for v in option["enum"])
        else:
            return set()
    return {"number" if t == "integer" else t for t in found}


def type_of_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def enum_values(schema: Mapping[str, Any]) -> set[Any] | None:
    """String values a schema is restricted to (enum/const across variants), else None."""
    values: set[Any] = set()
    for option in variants(schema):
        if "const" in option:
            values.add(option["const"])
        elif "enum" in option:
            values.update(option["enum"])
        else:
            return None
    return values if all(isinstance(v, str) for v in values) else None


# ---------------------------------------------------------------------------- python views


def unwrap_optional(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = len(args) != len(typing.get_args(hint))
        return (args[0] if len(args) == 1 else Union[tuple(args)]), nullable  # noqa: UP007
    return hint, False


def py_types(hint: Any) -> set[str]:
    """JSON types a Python annotation admits; {} = anything."""
    if hint is Any:
        return set()
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        out: set[str] = set()
        for arg in typing.get_args(hint):
            sub = py_types(arg)
            if not sub:
                return set()
            out |= sub
        return out
    if origin is Literal:
        return {type_of_value(v) for v in typing.get_args(hint)}
    if hint is type(None):
        return {"null"}
    base = origin or hint
    if base is bool:
        return {"boolean"}
    if base in (int, float):
        return {"number"}
    if base is str or base is os.PathLike:
        return {"string"}
    if isinstance(base, type) and issubclass(base, (WireModel, Mapping)):
        return {"object"}
    if base in (list, tuple) or (isinstance(base, type) and issubclass(base, Sequence)):
        return {"array"}
    raise AssertionError(f"parity test does not understand the annotation {hint!r}")


def members(hint: Any) -> list[Any]:
    if typing.get_origin(hint) in (Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


# ---------------------------------------------------------------------------- the checker


class Checker:
    """Walks Python annotations against JSON Schemas, collecting problems."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.visited: set[type] = set()

    def report(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def hint(self, hint: Any, schema: Mapping[str, Any], where: str, *, accepts_more: bool) -> None:
        """``accepts_more``: a parameter may accept more than the wire (one report or a list);
        a field or result must match exactly."""
        wanted, have = json_types(schema), py_types(hint)
        if wanted and have:
            if accepts_more:
                if not wanted - {"null"} <= have:
                    self.report(f"{where}: accepts {sorted(have)}, wire needs {sorted(wanted)}")
            elif wanted - {"null"} != have - {"null"}:
                self.report(f"{where}: Python {sorted(have)} vs schema {sorted(wanted)}")
        values = enum_values(schema)
        literal = [m for m in members(hint) if typing.get_origin(m) is Literal]
        if values is not None and not accepts_more:
            got = {v for m in literal for v in typing.get_args(m)}
            if got != values:
                self.report(f"{where}: Literal {sorted(got)} vs schema values {sorted(values)}")
        for member in members(hint):
            origin = typing.get_origin(member) or member
            if isinstance(origin, type) and issubclass(origin, WireModel):
                objects = [v for v in variants(schema) if v.get("type") == "object"]
                if objects:  # else the type check above already reported the mismatch
                    self.model(origin, objects[0] if len(objects) == 1 else {"oneOf": objects}, where)
            elif origin in (list, tuple) or (
                isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str
            ):
                items = [v["items"] for v in variants(schema) if v.get("type") == "array" and "items" in v]
                (item_hint,) = typing.get_args(member)[:1] or (Any,)
                for item_schema in items:
                    self.hint(item_hint, item_schema, f"{where}[]", accepts_more=accepts_more)

    def model(self, cls: type[WireModel], schema: Mapping[str, Any], where: str) -> None:
        self.visited.add(cls)
        props, required = object_view(schema)
        fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        hints = typing.get_type_hints(cls)
        label = f"{where} ({cls.__name__})"
        if set(fields) != set(props):
            self.report(
                f"{label}: Python-only fields {sorted(set(fields) - set(props))}, "
                f"schema-only fields {sorted(set(props) - set(fields))}"
            )
        for name in sorted(set(fields) & set(props)):
            field, prop = fields[name], props[name]
            if field.default is not dataclasses.MISSING:
                py_default: Any = field.default
            elif field.default_factory is not dataclasses.MISSING:
                py_default = field.default_factory()
            else:
                py_default = MISSING
            wire_default = schema_default(prop)
            if wire_default is not MISSING:
                if py_default is MISSING or normalise(py_default) != wire_default:
                    self.report(f"{label}.{name}: default {show(py_default)} vs schema default {wire_default!r}")
            elif name in required:
                if py_default is not MISSING:
                    self.report(f"{label}.{name}: required on the wire, Python default {py_default!r}")
            elif py_default is not None:
                self.report(f"{label}.{name}: optional on the wire, Python default must be None")
            self.hint(hints[name], prop, f"{label}.{name}", accepts_more=False)


def normalise(value: Any) -> Any:
    if isinstance(value, tuple):
        return [normalise(v) for v in value]
    if isinstance(value, Mapping):
        return {k: normalise(v) for k, v in value.items()}
    return value


def show(value: Any) -> str:
    return "<none>" if value is MISSING else repr(value)


def python_methods() -> dict[str, list[tuple[type, str, Any]]]:
    found: dict[str, list[tuple[type, str, Any]]] = {}
    for cls in (Client, Session):
        for attribute, function, tag in tagged_methods(cls):
            found.setdefault(tag.name, []).append((cls, attribute, function))
    return found


def check_method(checker: Checker, name: str, cls: type, function: Any, tag: Any) -> None:
    spec = PROTOCOL["methods"][name]
    props, required = object_view(spec["params"])
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function)
    implicit = IMPLICIT_PARAMS.get(cls.__name__, frozenset())
    where = f"{cls.__name__}.{function.__name__} ({name})"
    params = {p: v for p, v in signature.parameters.items() if p not in PYTHON_ONLY_PARAMS}
    if set(params) | implicit != set(props):
        checker.report(
            f"{where}: Python-only params {sorted(set(params) - set(props))}, "
            f"wire-only params {sorted(set(props) - set(params) - implicit)}"
        )
    for param_name in sorted(set(params) & set(props)):
        parameter = params[param_name]
        wire_default = schema_default(props[param_name])
        py_default = MISSING if parameter.default is inspect.Parameter.empty else parameter.default
        if wire_default is not MISSING:
            # None = "not sent": the bridge applies its own default.
            if py_default is MISSING or (py_default is not None and normalise(py_default) != wire_default):
                checker.report(f"{where}.{param_name}: default {show(py_default)} vs schema default {wire_default!r}")
        elif param_name in required:
            if py_default is not MISSING:
                checker.report(f"{where}.{param_name}: required on the wire, Python default {py_default!r}")
        elif py_default is not None:
            checker.report(f"{where}.{param_name}: optional on the wire, Python default must be None")
        checker.hint(hints[param_name], props[param_name], f"{where}.{param_name}", accepts_more=True)
    returns = hints.get("return", Any)
    result = spec["result"]
    if returns is Session:
        # create_session wraps the new session's id in a Session object.
        result_props, result_required = object_view(result)
        if set(result_props) != {"session_id"} or json_types(result_props["session_id"]) != {"string"}:
            checker.report(f"{where}: returns a Session but the result is {sorted(result_props)}")
        return
    if tag.unwrap is not None:
        result_props, _ = object_view(result)
        if set(result_props) != {tag.unwrap}:
            checker.report(f"{where}: unwraps {tag.unwrap!r} but the result has {sorted(result_props)}")
            return
        result = result_props[tag.unwrap]
    if returns is type(None) or returns is None:
        if object_view(result)[0]:
            checker.report(f"{where}: returns None but the result has fields")
        return
    checker.hint(returns, result, f"{where} -> result", accepts_more=False)


# ---------------------------------------------------------------------------- the tests


def test_every_bridge_method_has_exactly_one_python_method():
    found = python_methods()
    wire = set(PROTOCOL["methods"]) - TRANSPORT_METHODS
    assert sorted(wire - set(found)) == [], "bridge methods without a Python method"
    assert sorted(set(found) - set(PROTOCOL["methods"])) == [], "Python methods the bridge does not serve"
    assert {name: len(entries) for name, entries in found.items() if len(entries) != 1} == {}


def test_transport_methods_exist_on_the_bridge():
    assert TRANSPORT_METHODS <= set(PROTOCOL["methods"])


def test_method_params_and_results_match_the_schema():
    checker = Checker()
    for cls in (Client, Session):
        for _attribute, function, tag in tagged_methods(cls):
            if tag.name in PROTOCOL["methods"]:
                check_method(checker, tag.name, cls, function, tag)
    assert checker.problems == []


def test_progress_event_matches_the_notification_schema():
    checker = Checker()
    checker.model(tt.ProgressEvent, PROTOCOL["notifications"]["progress"]["params"], "notifications.progress")
    assert checker.problems == []


def test_every_dataclass_is_checked_against_the_schema():
    checker = Checker()
    for cls in (Client, Session):
        for _attribute, function, tag in tagged_methods(cls):
            if tag.name in PROTOCOL["methods"]:
                check_method(checker, tag.name, cls, function, tag)
    checker.model(tt.ProgressEvent, PROTOCOL["notifications"]["progress"]["params"], "notifications.progress")
    models = {
        value
        for value in vars(tt).values()
        if isinstance(value, type) and issubclass(value, WireModel) and value is not WireModel
    }
    assert sorted(c.__name__ for c in models - checker.visited) == []


def walk_properties(schema: Any, path: str = ""):
    if isinstance(schema, dict):
        for name, prop in schema.get("properties", {}).items():
            yield f"{path}.{name}", name, prop
        for key, value in schema.items():
            yield from walk_properties(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from walk_properties(value, f"{path}[{index}]")


def test_required_defaults_to_false_and_expect_exit_to_0_on_the_wire():
    seen = {"required": 0, "expect_exit": 0}
    for where, name, prop in walk_properties(PROTOCOL["methods"]):
        if name == "required":
            seen["required"] += 1
            assert prop.get("default") is False, where
        if name == "expect_exit":
            seen["expect_exit"] += 1
            assert prop.get("default") == 0, where
    assert seen["required"] > 0 and seen["expect_exit"] > 0


def test_required_defaults_to_false_and_expect_exit_to_0_in_python():
    assert tt.VerificationCheck(id="c", kind="test", description="d", status="passed").required is False
    command = tt.VerificationCommand(id="t", kind="test", description="d", command="true")
    assert (command.required, command.expect_exit, command.timeout_ms) == (False, 0, None)
    assert command.to_wire() == {
        "id": "t",
        "kind": "test",
        "description": "d",
        "command": "true",
        "required": False,
        "expect_exit": 0,
    }
    for cls in (tt.VerificationCheck, tt.VerificationCommand):
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}
        assert defaults["required"] is False


def test_effect_digest_is_a_report_field_and_round_trips():
    report = {
        "schema": "verification_report.v1",
        "subject": "tests",
        "status": "passed",
        "checks": [{"id": "t", "kind": "test", "description": "d", "status": "passed", "required": True}],
        "effect_digest": "ab" * 32,
    }
    assert tt.VerificationReport.from_wire(report).to_wire() == report


def test_unknown_result_keys_survive_a_round_trip():
    outcome = {"kind": "incomplete", "reason": "unverified_mutation", "message": "m", "future_key": [1]}
    parsed = tt.GateOutcome.from_wire(outcome)
    assert parsed.wire_extra() == {"future_key": [1]}
    assert parsed.to_wire() == outcome


@pytest.mark.parametrize(
    ("drifted", "problem"),
    [
        ({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, "schema-only"),
        (
            {"type": "object", "properties": {"required": {"type": "boolean", "default": True}}},
            "default False vs schema default True",
        ),
    ],
)
def test_the_checker_reports_drift(drifted, problem):
    @dataclasses.dataclass(kw_only=True)
    class Probe(WireModel):
        required: bool = False

    checker = Checker()
    checker.model(Probe, drifted, "probe")
    assert any(problem in p for p in checker.problems), checker.problems
