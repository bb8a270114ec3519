"""The result-cache key through the real bridge (issue 20 item 1): ``Client.cache_key``.

Expected values are independent of the bridge: the material is the RFC 8785 canonical JSON
written out by hand below (keys sorted, no spaces) and the key is its SHA-256 by ``hashlib``.
"""

from __future__ import annotations

import hashlib

import pytest

import turngate
from turngate import CacheKey

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

INPUT = {
    "tree": EMPTY_TREE,
    "lockfiles": {"pnpm-lock.yaml": EMPTY_SHA256},
    "check": {
        "command": "pnpm test",
        "shell": "bash",
        "cwd": ".",
        "env": {},
        "expect_exit": 0,
        "results_format": None,
        "timeout_ms": None,
    },
    "toolchain": [],
    "platform": {"os": "linux", "arch": "x64"},
    "outside": {},
    "turngate": "0.1.0",
}

MATERIAL = (
    '{"check":{"command":"pnpm test","cwd":".","env":{},"expect_exit":0,"results_format":null,'
    '"shell":"bash","timeout_ms":null},"lockfiles":{"pnpm-lock.yaml":"' + EMPTY_SHA256 + '"},'
    '"outside":{},"platform":{"arch":"x64","os":"linux"},"schema":"turngate.cache_key.v1",'
    '"toolchain":[],"tree":"' + EMPTY_TREE + '","turngate":"0.1.0"}'
)


def test_cache_key_is_the_sha256_of_the_canonical_material(bridge):
    result = bridge.cache_key(INPUT)
    assert isinstance(result, CacheKey)
    assert result == CacheKey(
        key=hashlib.sha256(MATERIAL.encode("utf-8")).hexdigest(),
        material=MATERIAL,
        schema="turngate.cache_key.v1",
    )
    assert result.key == "db434845ea0b1902f7207a982b266e54adffae2757f479602a4ff1e6104c95e4"
    other = bridge.cache_key({**INPUT, "platform": {"os": "linux", "arch": "arm64"}})
    assert other.key != result.key


def test_cache_key_refuses_a_malformed_input_naming_the_field(bridge):
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.cache_key({**INPUT, "tree": "nope"})
    assert info.value.path == "input.tree"
    with pytest.raises(turngate.InvalidParams) as info:
        bridge.cache_key({**INPUT, "check": {**INPUT["check"], "command": " "}})
    assert info.value.path == "input.check.command"
