"""Shared fixtures: a client on the scriptable fake bridge, and the real bridge when built."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import turngate

TESTS = Path(__file__).resolve().parent
FAKE_BRIDGE = TESTS / "fakes" / "fake_bridge.py"
REPO = TESTS.parents[2]
PROTOCOL_JSON = REPO / "packages" / "bridge" / "schema" / "protocol.json"


def fake_command() -> str:
    """TURNGATE_BRIDGE value that runs the fake bridge with this interpreter."""
    return shlex.join([sys.executable, str(FAKE_BRIDGE)])


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
