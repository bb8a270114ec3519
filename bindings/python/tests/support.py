"""Paths and helpers shared by the tests (importable as ``support``: pytest puts this
directory on sys.path)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
FAKE_BRIDGE = TESTS / "fakes" / "fake_bridge.py"
REPO = TESTS.parents[2]
PROTOCOL_JSON = REPO / "packages" / "bridge" / "schema" / "protocol.json"
VECTORS = REPO / "test-matrix" / "vectors"


def fake_command() -> str:
    """A ``bridge=`` value that runs the fake bridge with this interpreter."""
    return shlex.join([sys.executable, str(FAKE_BRIDGE)])
