"""Affected targets and the code index through the real bridge (issue 15): typed results with
exact values on a real pnpm workspace (c depends on b depends on a)."""

from __future__ import annotations

import json
from pathlib import Path

import turngate
from turngate import AffectedTargets, CodeIndexChanges


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _workspace(root: Path) -> None:
    _write(root, "pnpm-workspace.yaml", "packages:\n  - packages/*\n")
    _write(root, "packages/a/package.json", json.dumps({"name": "a"}))
    _write(root, "packages/a/src/index.ts", "export const a = 1;\n")
    _write(root, "packages/b/package.json", json.dumps({"name": "b", "dependencies": {"a": "workspace:*"}}))
    _write(root, "packages/b/src/index.ts", 'import { a } from "a";\nexport const b = a;\n')
    _write(root, "packages/c/package.json", json.dumps({"name": "c", "dependencies": {"b": "workspace:*"}}))
    _write(root, "packages/c/src/index.ts", 'import { b } from "b";\nexport const c = b;\n')


def test_pnpm_chain_global_file_and_unmapped(bridge, tmp_path: Path):
    root, state = tmp_path / "ws", tmp_path / "state"
    _workspace(root)
    fact = bridge.affected_targets(root, ["packages/a/src/index.ts"], state_dir=state)
    assert isinstance(fact, AffectedTargets)
    assert [(t.id, t.reason, t.via) for t in fact.targets] == [
        ("pnpm:a", "direct", None),
        ("pnpm:b", "dependent", ["pnpm:a"]),
        ("pnpm:c", "dependent", ["pnpm:a", "pnpm:b"]),
    ]
    assert fact.targets[0].wire_extra()["root"] == "packages/a"
    assert (fact.adapters[0].id, fact.adapters[0].ok, fact.adapters[0].target_count) == ("pnpm", True, 1)
    glob = bridge.affected_targets(root, ["babel.config.json", "docs/x.csv"], state_dir=state)
    assert [(t.id, t.reason) for t in glob.targets] == [
        ("pnpm:a", "global_file"),
        ("pnpm:b", "global_file"),
        ("pnpm:c", "global_file"),
        ("file:docs/x.csv", "unmapped"),
    ]
    assert glob.run_all_reasons == ["global_file: babel.config.json", "unmapped: docs/x.csv"]


def test_failing_adapter_is_a_fact_and_fallback_walks_the_index(bridge, tmp_path: Path):
    root, state = tmp_path / "ws", tmp_path / "state"
    _workspace(root)
    rows = [{"id": "bad", "parser_id": "harn.targets_json.v1", "spec": {"mode": "shell", "command": "echo nope"}}]
    fact = bridge.affected_targets(root, ["packages/b/src/index.ts"], rows, state_dir=state)
    assert (fact.adapters[0].ok, fact.adapters[0].target_count) == (False, 0)
    assert fact.adapters[0].error is not None and fact.adapters[0].error.startswith("harn.targets_json.v1: stdout is not JSON")
    assert [(t.id, t.reason, t.via) for t in fact.targets] == [
        ("file:packages/b/src/index.ts", "fallback", None),
        ("file:packages/c/src/index.ts", "dependent", ["packages/b/src/index.ts"]),
    ]


def test_code_index_changes_since_and_snapshot(bridge, tmp_path: Path):
    root, state = tmp_path / "ws", tmp_path / "state"
    _workspace(root)
    first = bridge.code_index_changes_since(root, state_dir=state)
    assert isinstance(first, CodeIndexChanges)
    assert (first.current_seq, first.built, first.files, first.changes) == (0, True, 7, [])
    assert (first.go_imports.source, first.go_imports.modules, first.go_imports.packages) == ("none", [], 0)
    for n in range(3):
        _write(root, "packages/a/src/index.ts", f"export const a = {n + 2};\n")
        bridge.code_index_changes_since(root, state_dir=state)
    after = bridge.code_index_changes_since(root, 1, state_dir=state)
    assert (after.current_seq, after.complete) == (3, True)
    assert [(c.seq, c.path, c.change) for c in after.changes] == [
        (2, "packages/a/src/index.ts", "modified"),
        (3, "packages/a/src/index.ts", "modified"),
    ]
    snap = bridge.code_index_file_hash_snapshot(root, ["packages/a/src/index.ts"], state_dir=state)
    entry = snap.files[0]
    assert (snap.seq, entry.known, entry.hash_source, entry.last_edit_seq) == (3, True, "indexed", 3)


def test_bad_params_name_the_field(bridge, tmp_path: Path):
    try:
        bridge.affected_targets(tmp_path / "missing", ["a.ts"])
    except turngate.InvalidParams as error:
        assert error.path == "root"
    else:
        raise AssertionError("expected InvalidParams")


def test_affected_from_outputs_is_pure_and_typed(bridge):
    stdout = json.dumps({"packages": [{"root": "a", "manifest": {"name": "a"}}, {"root": "b", "manifest": {"name": "b", "dependencies": {"a": "1"}}}]})
    fact = bridge.affected_from_outputs(
        ["a/x.ts", "notes.txt"],
        [{"id": "pnpm", "parser_id": "pnpm.workspace.v1", "result": {"exit_code": 0, "stdout": stdout}}],
    )
    assert [(t.id, t.reason, t.via) for t in fact.targets] == [
        ("pnpm:a", "direct", None),
        ("pnpm:b", "dependent", ["pnpm:a"]),
        ("file:notes.txt", "unmapped", None),
    ]
    assert fact.adapters[0].wire_extra() == {"project_count": 2, "project_roots": {"pnpm:a": "a", "pnpm:b": "b"}}
