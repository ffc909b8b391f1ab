"""Where no memory + pids cgroup can be created (e.g. a container with a read-only cgroupfs), the
isolated sandbox falls back to one process per job (RLIMIT_NPROC on the slot's own uid) with an
address-space limit; the multi-process payloads must still be contained."""
from __future__ import annotations

import pytest

from grader.sandbox import self_test
from grader.sandbox.forkserver import ForkServerSandbox
from grader.sandbox.launcher import BwrapLauncher, SlotLock

from tests.hostile.payload_support import (LIMITS, WALL_MARGIN, load_payload, make_calls, points,
                                           processes_of_uid)


@pytest.fixture(scope="module")
def sandbox_without_cgroup(canaries):
    slot = SlotLock()
    sandbox = ForkServerSandbox(BwrapLauncher(slot.uid, slot.job_uid, cgroup=None), cgroup=None, on_close=slot.release)
    try:
        assert self_test(sandbox) == []
        yield sandbox
    finally:
        sandbox.close()


@pytest.mark.parametrize("name", ["fork_bomb.py", "many_processes_memory.py", "escape_session.py",
                                  "memory_bomb.py"])
def test_multi_process_payloads_are_contained_without_a_cgroup(name, sandbox_without_cgroup, canaries):
    calls = make_calls(3)
    result = sandbox_without_cgroup.run(load_payload(name, canaries), calls, LIMITS)
    assert points(result, calls) == 0
    # a final state within the run's total limit, as in the main suite (a busy machine may take
    # longer than one test's wall clock to stop and reap every process of a bomb)
    assert result.seconds <= LIMITS.run_wall_seconds + WALL_MARGIN
    assert len(processes_of_uid(sandbox_without_cgroup.launcher.uid)) == 1
    assert processes_of_uid(sandbox_without_cgroup.launcher.job_uid) == []


def test_a_job_cannot_start_a_second_process_without_a_cgroup(sandbox_without_cgroup):
    from grader.sandbox import Call

    source = "import os\ndef f():\n    try:\n        pid = os.fork()\n    except OSError:\n" \
             "        return -1\n    if pid == 0:\n        os._exit(0)\n    return 1\n"
    assert sandbox_without_cgroup.run(source, [Call("t", "f")], LIMITS).calls[0].value == -1
