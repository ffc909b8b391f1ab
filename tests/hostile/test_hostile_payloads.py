"""Every payload in payloads/ (one or more per attack class of docs/references.md, "Sandbox") runs
through the real isolation and must be contained:

* it reaches a final state within the run's total wall limit plus a small margin (each test has
  its own limit; after a test stops its process the others run in a fresh one);
* it earns no points: each payload returns the right softmax only if its attack worked, and the
  points are computed here, on the trusted side;
* it leaves no process (the slot's cgroup holds only the server again, no process of the slot's
  uid survives) and no file owned by the sandbox uid in the host's temporary directories;
* the same sandbox instance then grades a correct submission with full marks.
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.hostile.payload_support import (CORRECT, LIMITS, PAYLOADS, WALL_MARGIN, files_of_uid,
                                           load_payload, make_calls, points, processes_of_uid,
                                           wait_for_quiet)

# Final statuses each payload may end in (None: any contained outcome is acceptable).
EXPECTED = {
    "infinite_loop.py": {"timeout"},
    "sleep_past_limit.py": {"timeout"},
    "fork_bomb.py": {"ok", "timeout"},
    "memory_bomb.py": {"memory_limit", "timeout"},  # timeout: on a loaded machine
    # memory_limit: the slot's OOM killer ended some child (five 200 MiB children never fit the
    # slot), the calls having returned zeros; timeout: the wall clock ended the job first on a
    # loaded machine; ok: no child was killed before the job ended (none held its memory yet).
    # The payload earns points only if five children of ONE call hold their memory at once
    # (its files are named for the call: survivors of earlier calls made five, and 2 points,
    # on a loaded machine when the files were not)
    "many_processes_memory.py": {"ok", "memory_limit", "timeout"},
    "stdout_flood.py": {"output_limit"},
    "fill_tmp.py": {"ok"},
    "read_shadow.py": {"ok"},
    "read_canary_file.py": {"ok"},
    "read_project_files.py": {"ok"},
    "import_hidden_tests.py": {"ok"},
    "import_host_packages.py": {"ok"},
    "read_database.py": {"ok"},
    "env_os_environ.py": {"ok"},
    "env_proc_environ.py": {"ok"},
    "memory_scan.py": {"ok"},
    "network_redis.py": {"ok"},
    "network_postgres.py": {"ok"},
    "network_outside.py": {"ok"},
    "kill_parent.py": {"ok"},
    "escape_session.py": {"ok"},
    "spinning_threads.py": {"timeout"},
    "ignore_signals.py": {"timeout"},
    "ctypes_syscalls.py": {"ok"},
    "monkeypatch_checks.py": {"ok"},
    "fake_results_file.py": {"ok"},
    "sys_exit_import.py": {"import_error"},
    "os_exit_import.py": {"crashed"},
    "exit_mid_call.py": {"crashed"},
    "sys_exit_mid_call.py": {"ok"},
    "print_pass.py": {"ok"},
    "forge_result_descriptors.py": {"crashed"},
    "fork_and_return.py": {"crashed"},
    "unbounded_recursion.py": {"crashed", "ok", "timeout", "memory_limit"},
    "other_jobs.py": {"ok"},
    "proc1_mem.py": {"ok"},
    "terminal_injection.py": {"ok"},
    "setuid_binaries.py": {"ok"},
    "ipc_stash.py": {"ok"},
    "many_tmp_files.py": {"timeout", "memory_limit"},
}


# Payloads whose attack is a long computation: the limit they must meet is their CPU time (the
# same everywhere), with a wall clock far above it, so that on a loaded machine (a fraction of
# a core) the scan still runs to its end and shows that it finds nothing, instead of being cut
# by the wall clock, which proves nothing about the attack.
SLOW_ATTACKS = {"memory_scan.py": replace(LIMITS, wall_seconds=30.0, run_wall_seconds=60.0)}


def test_every_payload_file_has_an_expectation():
    assert sorted(p.name for p in PAYLOADS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_payload_is_contained(name, hostile_sandbox, canaries):
    sandbox = hostile_sandbox
    sandbox.run(CORRECT, make_calls(0), LIMITS)  # warm, and a baseline for the process count
    baseline = len(sandbox.cgroup.pids())
    restarts = sandbox.restarts
    sandbox.cgroup.reset_peak_memory()
    calls = make_calls(sum(map(ord, name)))

    limits = SLOW_ATTACKS.get(name, LIMITS)
    started = time.monotonic()
    result = sandbox.run(load_payload(name, canaries), calls, limits)
    elapsed = time.monotonic() - started

    assert elapsed <= limits.run_wall_seconds + WALL_MARGIN, (elapsed, result.status)
    assert result.status in EXPECTED[name], (result.status, result.message, result.calls)
    assert points(result, calls) == 0, f"{name} earned points: {result.calls}"
    assert len(result.calls) == len(calls)
    assert len(result.stdout) <= LIMITS.output_bytes + 200
    peak = sandbox.cgroup.peak_memory()
    assert peak is not None and peak <= sandbox.cgroup.memory_limit()
    # at most the server (and bwrap) remain; none at all if the server retired after the job
    assert len(wait_for_quiet(sandbox, baseline)) <= baseline, "processes outlived the job"
    assert len(processes_of_uid(sandbox.launcher.uid)) <= 1, "a process of the server uid survived"
    assert processes_of_uid(sandbox.launcher.job_uid) == [], "a process of the job uid survived"
    for uid in (sandbox.launcher.uid, sandbox.launcher.job_uid):
        assert files_of_uid(uid) == [], "the payload left files on the host"
    assert not Path("/autograder/results/results.json").exists()
    assert not (Path(canaries["__PROJECT_DIR__"]) / "results.json").exists()
    if name == "kill_parent.py":
        assert sandbox.restarts == restarts, "the payload killed the server"
    if name == "fork_and_return.py":  # ended by the broken stream, not by the wall clock
        # the stop's fields say so (no limit met), whatever the time it took on a busy machine
        assert (result.broken_stream, result.limit) == (True, None), (elapsed, result)
        assert "os.fork()" in result.message, result.message

    follow_up_calls = make_calls(7)
    follow_up = sandbox.run(CORRECT, follow_up_calls, LIMITS)
    assert follow_up.status == "ok", (follow_up.status, follow_up.message)
    assert points(follow_up, follow_up_calls) == 3


def test_nothing_survives_into_the_next_job(hostile_sandbox, canaries):
    """A daemon planted by one job (setsid + double fork) must not be visible to the next job,
    nor its files: the probe below would earn full marks if anything were left."""
    sandbox = hostile_sandbox
    sandbox.run(load_payload("escape_session.py", canaries), make_calls(1), LIMITS)
    calls = make_calls(2)
    result = sandbox.run(load_payload("other_jobs.py", canaries), calls, LIMITS)
    assert result.status == "ok"
    assert points(result, calls) == 0


def test_self_test_still_passes_after_the_attacks(hostile_sandbox):
    from grader.sandbox import self_test

    assert self_test(hostile_sandbox) == []
