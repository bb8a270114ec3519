"""The "## Python" example of docs/bindings.md runs as written (issue 4 "Done when"): it creates a
session on a temporary git repository, observes a write, records a bound report and gets
``verified`` from the real bridge, and leaves no temporary folder behind."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from support import REPO


def python_section_snippet() -> str:
    """The first ```python block under the "## Python" heading of docs/bindings.md."""
    text = (REPO / "docs" / "bindings.md").read_text(encoding="utf-8")
    section = re.search(r"^## Python\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert section is not None, 'docs/bindings.md has no "## Python" section'
    block = re.search(r"^```python\n(.*?)^```", section.group(1), flags=re.S | re.M)
    assert block is not None, 'the "## Python" section has no ```python block'
    return block.group(1)


def test_docs_python_snippet_gets_verified(tmp_path):
    snippet = python_section_snippet()
    assert "with turngate.Client() as client" in snippet
    # The snippet's temporary repository must be gone afterwards: give it its own TMPDIR.
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    run = subprocess.run(
        [sys.executable, "-c", snippet], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "allow verified\n"
    assert sorted(p.name for p in tmpdir.iterdir()) == []
