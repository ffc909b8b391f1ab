"""Jobs cannot talk to each other (issue 20, part 4): nothing one job does is observable by a
later job of the same slot, nor, through the files every slot shares, by a job running at the
same time in another slot.

Each file of payloads/channels is one channel, with two or more ways to encode a value
(``encode_*``) and one ``decode`` that prints, as JSON, everything the channel let a later job
read: PIDs (its own, its children's, /proc/loadavg's last PID, /proc/1/stat), CPU time (the
server's /proc/1/stat, /proc/stat, /proc/uptime, load averages), what the server kept of the
last job (its wait status and resource usage, in the frames every job's process inherits), the
machine's counters (inode numbers of new pipes, memfds and pidfds; free memory), time stamps of
shared files (/dev/null ...), locks and watches on shared files. Each value is encoded in one
job and decoded in the next, on the same warm sandbox: the decoded observations must be the same
for every value (0 bits), every call the kernel accepted is counted (each must be refused), and
each decoder must still see what it looks at (its own PID is 1, the server's frames are there),
so the test fails when a channel opens again. ``benchmarks/job_channels.py`` measures the same
channels in bits (main before this change: every one of 16 values told apart; now 0).

Left (documented in grader/sandbox/README.md): timing (when a job starts, how fast it runs:
CPU, caches, the page cache), and the inode numbers of a job's own pipes, which the trusted
side makes from a machine-wide counter that only the number of sandbox processes an earlier run
needed moves (at most one more than its stopped tests, on an otherwise idle machine).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.sandbox import Call
from tests.hostile.payload_support import LIMITS, PAYLOADS

CHANNELS = PAYLOADS / "channels"
VALUES = (0, 7, 40)


def _refused(name: str):
    return lambda seen: seen[name] in ("PermissionError", -1)


def _pids(seen: dict) -> bool:
    return (seen["pid"], seen["ppid"], seen["child"], seen["/proc"]) == (1, 0, 2, []) and \
        seen["pidfd inode"] == "PermissionError"


def _cpu(seen: dict) -> bool:
    return seen["sysinfo"][0] == -1 and seen["/proc/1/stat cpu"] == "FileNotFoundError" and \
        seen["/proc/stat cpu"] == "FileNotFoundError"


def _server_memory(seen: dict) -> bool:
    return [name for name, _ in seen["frames"]] == ["child_main", "_serve_job", "serve", "main",
                                                    "<module>"]


def _machine_counters(seen: dict) -> bool:
    new = seen["new objects"]
    return all(new[name] == "PermissionError" for name in ("pipe", "pipe2", "memfd", "pidfd")) \
        and new["io_setup"] == -1 and new["clone pidfd"] == -1 and seen["sysinfo"][0] == -1


def _file_times(seen: dict) -> bool:
    return all(isinstance(stamp, int) for stamp in seen["/dev/null"] + seen["/dev"])


def _locks(seen: dict) -> bool:
    return seen["accepted"] == 0


# channel file: (its encoders, what its decoder must see)
EXPECTED = {
    "pids.py": (("encode_forks", "encode_threads"), _pids),
    "cpu.py": (("encode_spin", "encode_children"), _cpu),
    "server_memory.py": (("encode_exit_status", "encode_memory", "encode_context_switches",
                          "encode_killed"), _server_memory),
    "machine_counters.py": (("encode_objects", "encode_memory_held"), _machine_counters),
    "file_times.py": (("encode_utime", "encode_io"), _file_times),
    "locks.py": (("encode_python", "encode_raw"), _locks),
}


def test_every_channel_file_has_an_expectation():
    assert sorted(p.name for p in CHANNELS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name, encoder", [(name, encoder) for name, (encoders, _) in
                                           sorted(EXPECTED.items()) for encoder in encoders])
def test_a_later_job_recovers_nothing_an_earlier_job_encoded(name, encoder, hostile_sandbox):
    source = (CHANNELS / name).read_text()
    sees = EXPECTED[name][1]
    decoded = {}
    for value in VALUES:
        encoded = hostile_sandbox.run(source, [Call("encode", encoder, (value,))], LIMITS)
        if encoded.stdout.strip():  # the encoders that count what the kernel accepted
            assert json.loads(encoded.stdout)["accepted"] == 0, (value, encoded.stdout)
        result = hostile_sandbox.run(source, [Call("decode", "decode")], LIMITS)
        assert result.status == "ok" and result.calls[0].status == "ok", result
        decoded[value] = json.loads(result.stdout)
        assert sees(decoded[value]), decoded[value]
    first = decoded[VALUES[0]]
    for value in VALUES[1:]:
        assert decoded[value] == first, {key: (first[key], decoded[value][key]) for key in first
                                         if decoded[value][key] != first[key]}


def test_the_measurement_script_lists_the_same_channels():
    from benchmarks.job_channels import CHANNELS as measured, encoders

    assert measured == CHANNELS
    for name, (expected, _) in EXPECTED.items():
        assert tuple(encoders((CHANNELS / name).read_text())) == expected
