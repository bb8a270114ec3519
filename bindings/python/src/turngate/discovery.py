"""Finding the bridge to start: which command line runs ``turngate bridge --stdio``.

Order (issue 4, shared with the Go binding):

1. ``TURNGATE_BRIDGE`` (or the ``bridge`` argument): the turngate CLI to run. A path ending
   in ``.js``/``.mjs``/``.cjs`` is run with node; anything else is split like a shell
   command line (:func:`shlex.split`). ``bridge --stdio`` is appended either way.
2. The repository's built CLI: walking up from this file, the first
   ``packages/cli/dist/bin.js`` found (an editable install inside the turngate repo).
3. ``turngate`` on ``PATH``.

node is ``TURNGATE_NODE`` (or the ``node`` argument), else ``node`` on ``PATH``.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from .errors import BridgeError

BRIDGE_ARGS = ("bridge", "--stdio")
"""Arguments that make the turngate CLI serve the bridge protocol on stdio."""

_JS_SUFFIXES = (".js", ".mjs", ".cjs")


def find_repo_cli(start: Path | None = None) -> Path | None:
    """The first ``packages/cli/dist/bin.js`` in ``start`` or one of its parents.

    Input: the directory to start from (default: this package's directory).
    Output: the absolute path of ``bin.js``, or ``None`` when no ancestor has one.
    """
    here = (start or Path(__file__)).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "packages" / "cli" / "dist" / "bin.js"
        if candidate.is_file():
            return candidate
    return None


def find_node(node: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The node executable: ``node`` argument, else ``TURNGATE_NODE``, else ``node`` on PATH.

    Raises :class:`BridgeError` (code ``bridge_not_found``) when none is found.
    """
    env = os.environ if env is None else env
    chosen = node or env.get("TURNGATE_NODE") or shutil.which("node", path=env.get("PATH"))
    if not chosen:
        raise BridgeError("node was not found: set TURNGATE_NODE or put node on PATH", code="bridge_not_found")
    return chosen


def bridge_command(
    bridge: str | None = None,
    *,
    node: str | None = None,
    env: Mapping[str, str] | None = None,
    start: Path | None = None,
) -> list[str]:
    """The argv that starts the bridge, following the order in the module docstring.

    Input: ``bridge`` (overrides ``TURNGATE_BRIDGE``), ``node`` (overrides
    ``TURNGATE_NODE``), ``env`` (default ``os.environ``), ``start`` (where the repo search
    begins; default this file). Output: e.g. ``["/usr/bin/node", "/r/packages/cli/dist/bin.js",
    "bridge", "--stdio"]``. Raises :class:`BridgeError` (code ``bridge_not_found``) when no
    bridge can be found.
    """
    env = os.environ if env is None else env
    spec = bridge or env.get("TURNGATE_BRIDGE")
    if spec:
        if spec.endswith(_JS_SUFFIXES):
            return [find_node(node, env), spec, *BRIDGE_ARGS]
        argv = shlex.split(spec)
        if not argv:
            raise BridgeError("TURNGATE_BRIDGE is blank", code="bridge_not_found")
        return [*argv, *BRIDGE_ARGS]
    cli = find_repo_cli(start)
    if cli is not None:
        return [find_node(node, env), str(cli), *BRIDGE_ARGS]
    on_path = shutil.which("turngate", path=env.get("PATH"))
    if on_path:
        return [on_path, *BRIDGE_ARGS]
    here = (start or Path(__file__)).resolve()
    raise BridgeError(
        "the turngate bridge was not found. Looked for: TURNGATE_BRIDGE (unset); "
        f"packages/cli/dist/bin.js in {here.parent if here.is_file() else here} or above "
        "(only an install inside a turngate checkout has one); `turngate` on PATH (none). "
        "Install the CLI so `turngate` is on PATH (README: Install), or set TURNGATE_BRIDGE "
        "to the CLI (a path to its bin.js, or a command line)",
        code="bridge_not_found",
    )
