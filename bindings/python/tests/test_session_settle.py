"""``Session.settle_workspace_child`` against the real bridge (``session.settle_child``): a
background workspace child keeps the gate at ``open_children`` until the host settles it,
and the re-read that follows puts the child's writes on the ledger.

Digests computed outside the implementation with ``printf '…' | sha256sum``.
"""

from __future__ import annotations


import pytest

import turngate

HELLO_LF = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
"""printf 'hello\\n' | sha256sum"""

DIGEST_WORKSPACE_HELLO = "521ecc2f4fc9522d0ad896d5190afbe28b9f2107575c250bdfbca89573ff61b8"
"""printf 'workspace|hello.txt|5891b5…6be03' | sha256sum"""

E2 = (
    "completion gate: background workspace task task-1 has not been observed. "
    "A final answer does not observe its writes."
)


def test_a_settled_child_stops_blocking_and_its_writes_join_the_ledger(bridge, repo):
    with bridge.create_session(repo) as session:
        session.observe_tool("bash", 0, {"workspace_child": "task-1"})
        (repo / "hello.txt").write_text("hello\n")
        session.observe_workspace()
        blocked = session.decide()
        assert (blocked.kind, blocked.reason, blocked.task_ids, blocked.message) == (
            "incomplete",
            "open_children",
            ["task-1"],
            E2,
        )

        settled = session.settle_workspace_child("task-1")
        assert settled == turngate.ChildSettlement(
            settled=True,
            open_children=[],
            effect_digest=DIGEST_WORKSPACE_HELLO,
            changes=[turngate.WorkspaceChange(path="hello.txt", change="added", content_digest=HELLO_LF, scope="source")],
            complete=True,
            unreadable=[],
        )
        session.observe_workspace()  # the replay does not reopen the settled child
        outcome = session.decide()
        assert (outcome.kind, outcome.reason, outcome.effect_digest) == (
            "incomplete",
            "unverified_mutation",
            DIGEST_WORKSPACE_HELLO,
        )
        again = session.settle_workspace_child("task-1")
        assert (again.settled, again.open_children) == (False, [])


def test_a_blank_task_id_is_refused_with_its_path(bridge, repo):
    with bridge.create_session(repo) as session:
        with pytest.raises(turngate.InvalidParams) as info:
            session.settle_workspace_child("  ")
        assert (info.value.code, info.value.path) == ("invalid_params", "task_id")
        assert str(info.value) == "session.settle_child: task_id: must not be blank"
