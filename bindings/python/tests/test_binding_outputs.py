"""What the checks changed (issue 10) through the Python binding against the real bridge:
check outputs in a bound binding, the hint of an unbound one, and ``rewrite_paths``.

The effect digest is computed from docs/design.md §3's formula (``sha256("workspace|a.txt|" +
sha256(bytes))``), not by the implementation.
"""

from __future__ import annotations

import hashlib
import sys

import turngate


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def command(cmd: str, *, id: str = "check") -> turngate.VerificationCommand:
    return turngate.VerificationCommand(id=id, kind="test", description=cmd, command=cmd, required=True)


def test_check_outputs_are_listed_and_the_report_stays_bound(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("a\n")
        session.observe_workspace()
        result = session.verify_commands(
            "tests", [command("mkdir -p coverage && echo x > coverage/lcov.info")], bind=True
        )
        assert result.binding == turngate.ReportBinding(
            bound=True,
            effect_digest=sha256("workspace|a.txt|" + sha256("a\n")),
            check_outputs=turngate.CheckOutputs(
                count=1,
                paths=[turngate.CheckOutput(path="coverage/lcov.info", change="added", scope="output")],
            ),
        )


def test_an_unbound_binding_says_what_to_do(bridge, repo):
    with bridge.create_session(repo) as session:
        (repo / "a.txt").write_text("a\n")
        session.observe_workspace()
        result = session.verify_commands("tests", [command("echo x > gen.txt")], bind=True)
        assert result.binding.reason == "workspace_changed_during_check"
        assert result.binding.created == ["gen.txt"]
        assert result.binding.hint == (
            'the checks created gen.txt: add "gen.txt" to "outputs" in turngate.config.json, or to .gitignore'
        )


def test_rewrite_paths_reruns_once_and_binds_with_the_rewrite(bridge, repo, tmp_path_factory):
    (repo / "uv.lock").write_text("v1\n")
    settle = tmp_path_factory.mktemp("scripts") / "settle.py"
    settle.write_text(
        "import pathlib\n"
        "p = pathlib.Path('uv.lock')\n"
        "if p.read_text() != 'v2\\n':\n"
        "    p.write_text('v2\\n')\n"
    )
    with bridge.create_session(repo, options={"rewrite_paths": ["uv.lock"]}) as session:
        (repo / "a.txt").write_text("a\n")
        session.observe_workspace()
        result = session.verify_commands("tests", [command(f"{sys.executable} {settle}", id="lock")], bind=True)
        assert result.binding.bound is True
        assert result.binding.rewrites == [turngate.CheckRewrite(path="uv.lock", check_id="lock")]
        assert session.decide().kind == "allow"
