"""The result stream grammar: anything out of order is the learner's doing and ends as "crashed",
never as a pass."""
from __future__ import annotations

import json
import struct

import numpy as np

from grader.sandbox import Call, Limits
from grader.sandbox import wire
from grader.sandbox.collect import Collector, Ending, format_bytes

CALLS = [Call(test="a", function="f"), Call(test="b", function="f")]


def value_frame(index: int, value) -> tuple[bytes, bytes]:
    header = json.dumps({"i": index, "seconds": 0.0}).encode()
    return b"VALU", struct.pack("!I", len(header)) + header + wire.encode_value(value)


def start(index: int) -> tuple[bytes, bytes]:
    return b"STRT", json.dumps({"i": index}).encode()


LIVE = (b"LIVE", b"{}")
IMPD = (b"IMPD", b"{}")


def collect(frames, ending=None, live=True):
    collector = Collector(CALLS, Limits())
    for tag, body in ([LIVE, IMPD] if live else []) + list(frames):
        collector.feed(tag, body)
    return collector.result(ending or Ending(exit_status=0), "")


def test_complete_stream_is_ok():
    result = collect([start(0), value_frame(0, np.ones(2)), start(1), value_frame(1, 3.0), (b"DONE", b"{}")])
    assert result.status == "ok" and result.calls[1].value == 3.0


def test_calls_are_reported_only_after_the_import():
    collector = Collector(CALLS, Limits())
    collector.feed(*LIVE)
    collector.feed(*start(0))
    assert not collector.imported and "before the import" in collector.violation
    again = collect([IMPD, start(0)])
    assert again.status == "crashed" and again.message == (
        "the process running your code sent malformed results (out of order or twice, as when "
        "your code starts another process, e.g. with os.fork(), that keeps running); nothing it "
        "returned was graded")


def test_the_first_frame_must_be_live_and_only_the_first():
    collector = Collector(CALLS, Limits())
    collector.feed(*start(0))
    assert not collector.live and "LIVE" in collector.violation
    again = collect([LIVE, start(0), value_frame(0, 1.0)])
    assert again.status == "crashed" and "malformed results" in again.message


def test_result_for_a_call_that_did_not_start_is_a_crash():
    result = collect([value_frame(0, np.ones(2)), (b"DONE", b"{}")])
    assert result.status == "crashed" and "malformed results" in result.message
    assert all(call.status == "skipped" for call in result.calls)


def test_calls_started_out_of_order_are_a_crash():
    assert collect([start(1), value_frame(1, 1.0), (b"DONE", b"{}")]).status == "crashed"


def test_done_before_every_call_answered_is_a_crash():
    result = collect([start(0), value_frame(0, 1.0), (b"DONE", b"{}")])
    assert result.status == "crashed"


def test_unknown_failure_status_is_a_crash():
    fail = json.dumps({"i": 0, "status": "ok", "error": "", "memory": False}).encode()
    assert collect([start(0), (b"FAIL", fail), (b"DONE", b"{}")]).status == "crashed"


def test_frames_after_done_are_a_crash():
    frames = [start(0), value_frame(0, 1.0), start(1), value_frame(1, 1.0), (b"DONE", b"{}"), start(0)]
    assert collect(frames).status == "crashed"


def test_process_that_ends_silently_is_a_crash_naming_the_test():
    result = collect([start(0)], Ending(exit_status=9))  # killed by SIGKILL
    assert result.status == "crashed"
    assert "during test 'a'" in result.message and "SIGKILL" in result.message


def test_infrastructure_fault_is_never_the_learners_zero():
    result = collect([start(0)], Ending(infrastructure="sandbox server failed"))
    assert result.status == "infrastructure_error"
    assert all(call.status == "skipped" for call in result.calls)


def test_format_bytes_uses_binary_units():
    assert [format_bytes(n) for n in (1 << 30, 64 << 10, 1536, 100)] == ["1 GiB", "64 KiB", "1.5 KiB", "100 bytes"]
