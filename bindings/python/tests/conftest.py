"""Shared fixtures: a client on the scriptable fake bridge, the real bridge when built, and an
empty git repository."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import fake_command

import turngate


@pytest.fixture
def fake_client() -> Iterator[Callable[..., turngate.Client]]:
    """Factory: ``fake_client(mode="", protocol=None, **client_kwargs)`` → a Client on the
    fake bridge; every client made is closed after the test."""
    made: list[turngate.Client] = []

    def make(mode: str = "", protocol: str | None = None, **kwargs: object) -> turngate.Client:
        env = {**os.environ, "FAKE_MODE": mode}
        if protocol is not None:
            env["FAKE_PROTOCOL"] = protocol
        client = turngate.Client(bridge=fake_command(), env=env, **kwargs)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture(scope="session")
def bridge() -> Iterator[turngate.Client]:
    """One client on the real bridge (the repo's built CLI) for the whole test session."""
    with turngate.Client() as client:
        yield client


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository (no commits) in the test's temporary directory."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path
