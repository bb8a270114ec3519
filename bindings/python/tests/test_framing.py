"""Framing of the stdio transport: the request line encoder, the reply decoder, and replies
that arrive split across reads or several to a read (a scripted stand-in bridge)."""

from __future__ import annotations

import json
import math
import shlex
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import turngate
from turngate._rpc import decode_message, encode_message, encode_request, request
from turngate._wire import to_wire

CHUNKY_BRIDGE = r'''
import json, sys, time

def write(text):
    sys.stdout.write(text)
    sys.stdout.flush()

waiting = []
for line in sys.stdin:
    message = json.loads(line)
    method, rid = message["method"], message.get("id")
    if method == "initialize":
        write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"protocol": "turngate.bridge.v1", "version": "chunky", "methods": []}}) + "\n")
    elif method == "shutdown":
        write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {}}) + "\n")
        break
    elif method == "split":
        # A blank line, then the reply in three writes, cut inside a multi-byte character.
        reply = (json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"text": "h\u00e9llo"}}, ensure_ascii=False) + "\n").encode()
        cut = reply.index("\u00e9".encode()) + 1
        sys.stdout.buffer.write(b"\n" + reply[:cut]); sys.stdout.flush(); time.sleep(0.02)
        sys.stdout.buffer.write(reply[cut:cut + 3]); sys.stdout.flush(); time.sleep(0.02)
        sys.stdout.buffer.write(reply[cut + 3:]); sys.stdout.flush()
    elif method == "pair":
        # Answer two pending "pair" requests in one write: the later id first, then a
        # progress notification for the earlier one, then the earlier one.
        waiting.append(rid)
        if len(waiting) == 2:
            low, high = sorted(waiting)
            event = {"event": "check_started", "request_id": low, "index": 0, "total": 1,
                     "check_id": "c", "command": "true"}
            lines = [json.dumps({"jsonrpc": "2.0", "id": high, "result": {"n": high}}),
                     json.dumps({"jsonrpc": "2.0", "method": "progress", "params": event}),
                     json.dumps({"jsonrpc": "2.0", "id": low, "result": {"n": low}})]
            write("\n".join(lines) + "\n")
            waiting.clear()
    elif method == "old_envelope":
        # One line with the caller's id but not JSON-RPC 2.0.
        write(json.dumps({"jsonrpc": "1.0", "id": rid, "result": {}}) + "\n")
    elif method == "progress_then_reply":
        # A lone call's progress notification and its reply in one write.
        event = {"event": "check_started", "request_id": rid, "index": 0, "total": 1,
                 "check_id": "p", "command": "true"}
        write(json.dumps({"jsonrpc": "2.0", "method": "progress", "params": event}) + "\n"
              + json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"done": True}}) + "\n")
'''


@pytest.fixture
def chunky(tmp_path: Path) -> Iterator[turngate.Client]:
    script = tmp_path / "chunky_bridge.py"
    script.write_text(CHUNKY_BRIDGE)
    with turngate.Client(bridge=shlex.join([sys.executable, str(script)]), timeout=10) as client:
        yield client


@pytest.mark.parametrize(
    "params",
    [None, {}, {"records": []}, {"a": [1, 2.5, "é\u2028", None, True, {"b": "\\|\n"}]}, {"s": "😀"}],
)
def test_encode_request_writes_the_bytes_encode_message_writes(params):
    assert encode_request(41, "ledger.digest", params) == encode_message(request(41, "ledger.digest", params))
    assert encode_request(1, 'odd"name', params) == encode_message(request(1, 'odd"name', params))


def test_encode_request_refuses_what_json_cannot_carry_with_invalid_params():
    cycle: list[object] = []
    cycle.append(cycle)
    cases = [
        ({"x": math.nan}, "params are not JSON-serialisable: Out of range float values are not JSON compliant"),
        ({"x": object()}, "params are not JSON-serialisable: Object of type object is not JSON serializable"),
        ({"x": cycle}, "params are not JSON-serialisable: Circular reference detected"),
    ]
    for params, message in cases:
        with pytest.raises(turngate.InvalidParams) as info:
            encode_request(1, "m", params)
        assert (str(info.value), info.value.path) == (message, "")
    with pytest.raises(turngate.InvalidParams) as info:
        encode_request(1, "m", {"x": "\ud800"})
    assert str(info.value).startswith("params are not JSON-serialisable: 'utf-8' codec can't encode character")


@pytest.mark.parametrize("text", ['{"a":1}', ' {"a":1}', '{"a":1} ', '{"a":1}\r', "[1,2]", '"s"', "3", "null"])
def test_decode_message_parses_like_json_loads(text):
    assert decode_message(text) == json.loads(text)


@pytest.mark.parametrize("text", ['{"a":1}x', '{"a":1}{"b":2}', "", "   ", '{"a":', "NaNx"])
def test_decode_message_refuses_what_json_loads_refuses(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        decode_message(text)


def test_to_wire_passes_an_all_scalar_dict_through_and_converts_nested_models():
    flat = {"tool": "write", "path": "a", "content_digest": "x", "n": 1, "f": 0.5, "b": True, "z": None}
    assert to_wire(flat) is flat
    record = turngate.MutationRecord(tool="write", path="a", content_digest="x")
    nested = {"record": record, "k": "v"}
    converted = to_wire(nested)
    assert converted == {"record": {"tool": "write", "path": "a", "content_digest": "x"}, "k": "v"}
    assert nested["record"] is record  # the caller's dict is left as it was


def test_a_reply_split_across_reads_after_a_blank_line_is_delivered(chunky):
    assert chunky.call("split") == {"text": "h\u00e9llo"}
    assert chunky.call("split") == {"text": "h\u00e9llo"}


def test_two_replies_and_a_notification_in_one_read_reach_their_callers(chunky):
    results: dict[str, object] = {}
    events: list[turngate.ProgressEvent] = []

    def first() -> None:
        results["first"] = chunky.call("pair", on_progress=events.append)

    thread = threading.Thread(target=first)
    thread.start()
    # The first call has its id (2; initialize was 1) once it is pending.
    stop = time.monotonic() + 5
    while not chunky._transport._pending and time.monotonic() < stop:  # noqa: SLF001
        time.sleep(0.005)
    results["second"] = chunky.call("pair")
    thread.join(5)
    assert results == {"first": {"n": 2}, "second": {"n": 3}}
    assert [(event.event, event.request_id, event.check_id) for event in events] == [("check_started", 2, "c")]


def test_a_lone_calls_progress_and_reply_in_one_read_both_arrive(chunky):
    # A lone caller reads its own answer first (one poll + read); a chunk holding more than
    # its one reply line goes through the general reader, notifications included.
    events: list[turngate.ProgressEvent] = []
    assert chunky.call("progress_then_reply", on_progress=events.append) == {"done": True}
    assert [(event.event, event.check_id) for event in events] == [("check_started", "p")]
    assert chunky.call("split") == {"text": "h\u00e9llo"}


def test_a_one_line_answer_with_the_callers_id_but_not_json_rpc_2_is_a_protocol_violation(chunky):
    with pytest.raises(turngate.ProtocolError) as info:
        chunky.call("old_envelope")
    assert info.value.code == "protocol_violation"
    assert str(info.value).startswith("bridge sent a message that is not JSON-RPC 2.0: {'jsonrpc': '1.0', 'id': 2,")
