"""Shared fixtures: a client on the scriptable fake bridge, and the real bridge when built."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

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
