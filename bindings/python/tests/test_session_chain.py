"""docs/cli.md "Gapless turns" (issue 32 item 3): ``Session.baseline`` and ``create_session``'s
``options["continue_from"]`` chain sessions across bridge processes, on real temporary git
repositories with the real bridge."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import turngate


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_an_unverified_change_survives_a_bridge_restart(repo: Path) -> None:
    (repo / "lib.py").write_text("x = 1\n")
    with turngate.Client() as first:
        with first.create_session(repo) as session:
            (repo / "lib.py").write_text("x = 2\n")
            ended = session.end_turn()
            assert ended.ended is False
            baseline = session.baseline()
    assert baseline["schema"] == "turngate.workspace_snapshot.v1"
    assert baseline["root"] == str(repo.resolve())

    with turngate.Client() as second:
        with second.create_session(repo, options={"continue_from": baseline}) as chained:
            observed = chained.observe_workspace()
            assert [c.path for c in observed.changes] == ["lib.py"]
            changed = sha256("x = 2\n")
            assert chained.effect_digest() == sha256(f"workspace|lib.py|{changed}")
        with second.create_session(repo) as fresh:
            assert fresh.observe_workspace().changes == []


def test_a_baseline_of_another_root_is_refused_at_its_field(bridge: turngate.Client, repo: Path, tmp_path_factory) -> None:
    other = tmp_path_factory.mktemp("other")
    with bridge.create_session(other) as session:
        baseline = session.baseline()
    with pytest.raises(turngate.RemoteError) as info:
        bridge.create_session(repo, options={"continue_from": baseline})
    assert (info.value.code, info.value.path) == ("invalid_snapshot", "options.continue_from.root")
    with pytest.raises(turngate.RemoteError) as malformed:
        bridge.create_session(repo, options={"continue_from": {"schema": "nope"}})
    assert (malformed.value.code, malformed.value.path) == ("invalid_snapshot", "options.continue_from.schema")
