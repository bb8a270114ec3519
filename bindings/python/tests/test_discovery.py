"""Finding the bridge: TURNGATE_BRIDGE, the repository's built CLI, turngate on PATH;
node through TURNGATE_NODE or PATH (turngate.discovery)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support import fake_command

import turngate
from turngate.discovery import bridge_command, find_repo_cli


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def repo_with_cli(root: Path) -> Path:
    cli = root / "packages" / "cli" / "dist" / "bin.js"
    cli.parent.mkdir(parents=True)
    cli.write_text("// built CLI\n")
    return cli


def test_turngate_bridge_js_runs_with_turngate_node():
    env = {"TURNGATE_BRIDGE": "/opt/tg/bin.js", "TURNGATE_NODE": "/opt/node20/bin/node", "PATH": ""}
    assert bridge_command(env=env) == ["/opt/node20/bin/node", "/opt/tg/bin.js", "bridge", "--stdio"]


def test_turngate_bridge_mjs_uses_node_from_path(tmp_path):
    node = executable(tmp_path / "bin" / "node")
    env = {"TURNGATE_BRIDGE": "/opt/tg/main.mjs", "PATH": str(node.parent)}
    assert bridge_command(env=env) == [str(node), "/opt/tg/main.mjs", "bridge", "--stdio"]


def test_turngate_bridge_command_line_is_split_like_a_shell():
    env = {"TURNGATE_BRIDGE": '/opt/tg/turngate --log-file "/tmp/a b.log"', "PATH": ""}
    assert bridge_command(env=env) == [
        "/opt/tg/turngate",
        "--log-file",
        "/tmp/a b.log",
        "bridge",
        "--stdio",
    ]


def test_the_bridge_argument_overrides_the_environment():
    env = {"TURNGATE_BRIDGE": "/env/turngate", "PATH": ""}
    assert bridge_command("/arg/turngate", env=env) == ["/arg/turngate", "bridge", "--stdio"]


def test_node_argument_overrides_turngate_node():
    env = {"TURNGATE_BRIDGE": "/opt/tg/bin.js", "TURNGATE_NODE": "/env/node", "PATH": ""}
    assert bridge_command(node="/arg/node", env=env)[0] == "/arg/node"


def test_repo_cli_is_found_walking_up_from_the_start(tmp_path):
    cli = repo_with_cli(tmp_path)
    start = tmp_path / "bindings" / "python" / "src" / "turngate"
    start.mkdir(parents=True)
    assert find_repo_cli(start) == cli
    env = {"TURNGATE_NODE": "/n/node", "PATH": ""}
    assert bridge_command(env=env, start=start) == ["/n/node", str(cli), "bridge", "--stdio"]


def test_turngate_on_path_is_the_last_resort(tmp_path):
    turngate_bin = executable(tmp_path / "bin" / "turngate")
    elsewhere = tmp_path / "no-repo"
    elsewhere.mkdir()
    env = {"PATH": str(turngate_bin.parent)}
    assert find_repo_cli(elsewhere) is None
    assert bridge_command(env=env, start=elsewhere) == [str(turngate_bin), "bridge", "--stdio"]


def test_nothing_found_is_a_bridge_error_naming_the_options(tmp_path):
    with pytest.raises(turngate.BridgeError) as info:
        bridge_command(env={"PATH": str(tmp_path)}, start=tmp_path)
    assert info.value.code == "bridge_not_found"
    # Each place looked at and what was there (issue 34 item 7: a pip-installed binding in
    # site-packages has no checkout above it, so "build the repo" was the wrong advice).
    assert str(info.value) == (
        "the turngate bridge was not found. Looked for: TURNGATE_BRIDGE (unset); "
        f"packages/cli/dist/bin.js in {tmp_path.resolve()} or above "
        "(only an install inside a turngate checkout has one); `turngate` on PATH (none). "
        "Install the CLI so `turngate` is on PATH (README: Install), or set TURNGATE_BRIDGE "
        "to the CLI (a path to its bin.js, or a command line)"
    )


def test_missing_node_is_a_bridge_error(tmp_path):
    repo_with_cli(tmp_path)
    with pytest.raises(turngate.BridgeError) as info:
        bridge_command(env={"PATH": str(tmp_path)}, start=tmp_path)
    assert info.value.code == "bridge_not_found"
    assert str(info.value) == "node was not found: set TURNGATE_NODE or put node on PATH"


def test_blank_turngate_bridge_is_rejected():
    with pytest.raises(turngate.BridgeError) as info:
        bridge_command(env={"TURNGATE_BRIDGE": "   ", "PATH": ""})
    assert str(info.value) == "TURNGATE_BRIDGE is blank"


def test_client_finds_the_bridge_through_turngate_bridge_in_its_env():
    env = {**os.environ, "TURNGATE_BRIDGE": fake_command()}
    with turngate.Client(env=env) as client:
        assert client.bridge_version == "0.0.0-fake"
        assert client.call("echo", {"via": "TURNGATE_BRIDGE"}) == {"via": "TURNGATE_BRIDGE"}
