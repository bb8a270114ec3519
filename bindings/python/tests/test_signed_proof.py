"""Signed proofs through the Python binding on the real bridge (issue 10): a verified turn's
proof signed by the bridge user's key verifies; a payload edited after signing is
``bad_signature``; a bare hand-written proof is ``unauthenticated``; the in-toto form with a
key file verifies against its public key and matches the commit of the change. The bridge
gets its own state folder (so its own key)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

import turngate


def sha256(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )
    return out.stdout.strip()


@pytest.fixture
def own_bridge(tmp_path: Path):
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    with turngate.Client(env=env) as client:
        yield client


@pytest.fixture
def decided(own_bridge, tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("old\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "base")
    session = own_bridge.create_session(root)
    (root / "a.txt").write_text("new\n")
    session.observe_workspace()
    check = turngate.VerificationCommand(
        id="t", kind="test", description="d", command="grep -qx new a.txt", required=True
    )
    session.verify_commands("host", [check], bind=True)
    assert session.decide().terminal.kind == "verified"
    yield own_bridge, session, root
    session.close()


def test_a_signed_proof_verifies_and_forged_ones_do_not(decided):
    client, session, root = decided
    digest = sha256(f"workspace|a.txt|{sha256('new' + chr(10))}")
    signed = session.signed_proof()
    assert signed.format == "dsse" and len(signed.keyid) == 64
    verified = client.verify_proof(signed.envelope, root)
    assert (verified.ok, verified.format, verified.authentication.status, verified.authentication.keyid) == (
        True, "dsse", "authenticated", signed.keyid,
    )
    assert verified.recomputed_digest == digest
    assert [log.status for log in verified.evidence_logs] == ["match"]

    envelope = json.loads(signed.envelope)
    proof = json.loads(base64.b64decode(envelope["payload"]))
    assert proof["trust"] == "unsandboxed"
    assert proof["workspace"]["baseline_tree"] == git(root, "rev-parse", "HEAD^{tree}")
    proof["tool_versions"]["forged"] = "1"
    envelope["payload"] = base64.b64encode(json.dumps(proof).encode()).decode()
    edited = client.verify_proof(json.dumps(envelope), root)
    assert (edited.ok, edited.authentication.status, edited.authentication.reason) == (
        False, "invalid", "bad_signature",
    )
    bare = client.verify_proof(json.dumps(proof), root)
    assert (bare.ok, bare.format, bare.authentication.reason) == (False, "plain", "unsigned")
    assert bare.problems == [
        "unauthenticated (unsigned): the proof is not signed: anyone who can write the file could have"
        " written it; pass --allow-unsigned to check it anyway"
    ]


def test_in_toto_with_a_key_file_verifies_with_its_public_key_and_matches_the_commit(decided, tmp_path: Path):
    client, session, root = decided
    key = tmp_path / "k.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True)
    pub = tmp_path / "k.pub"
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True)
    signed = session.signed_proof("in-toto", key)
    assert json.loads(signed.envelope)["payloadType"] == "application/vnd.in-toto+json"
    # The bridge user has no key of its own yet: nothing here to trust.
    untrusted = client.verify_proof(signed.envelope, root)
    assert (untrusted.ok, untrusted.authentication.reason, untrusted.authentication.keyids) == (
        False, "no_trusted_key", [signed.keyid],
    )
    git(root, "commit", "-q", "--no-gpg-sign", "-am", "turn")
    matched = client.verify_proof(signed.envelope, root, public_key_file=pub, commit="HEAD")
    assert (matched.ok, matched.format) == (True, "in-toto")
    assert matched.commit == turngate.types.ProofCommitMatch(
        matches=True,
        commit_tree=git(root, "rev-parse", "HEAD^{tree}"),
        final_tree=git(root, "rev-parse", "HEAD^{tree}"),
        reason=None,
    )


def test_a_key_file_inside_the_workspace_is_refused(decided):
    _, session, root = decided
    with pytest.raises(turngate.RemoteError) as raised:
        session.signed_proof(key_file=root / "k.pem")
    assert (raised.value.code, raised.value.path) == ("signing_key_in_workspace", "key_file")
