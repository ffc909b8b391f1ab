"""Running learner code in isolation: ``get_sandbox(mode)`` and ``self_test(sandbox)``.

Modes:

* ``"auto"`` (default) / ``"isolated"``: the pre-forked NumPy server under bubblewrap with namespaces,
  unprivileged per-slot uids (one for the server, another for its jobs), seccomp, a read-only
  minimal filesystem, a fresh size-limited /tmp per job and a memory + pids cgroup per slot (see ``launcher.py``). Raises :class:`SandboxUnavailable`
  if any of it cannot be set up or the start-up self-test finds a problem: fail closed.
* ``"unsafe-dev"``: the same server without any isolation (empty environment and rlimits only), for
  development machines. Logs a loud warning; never chosen implicitly.

Typical use in a worker process: ``sandbox = get_sandbox()`` once at start-up (it runs the
self-test), then ``sandbox.run(source, calls, limits)`` per job, ``sandbox.close()`` at exit.
"""
from __future__ import annotations

import logging

from grader.sandbox.api import (Call, CallOutcome, CallStatus, Limits, RunResult, RunStatus, Sandbox,
                                SandboxUnavailable)
from grader.sandbox.selftest import self_test

__all__ = [
    "Call", "CallOutcome", "CallStatus", "Limits", "RunResult", "RunStatus", "Sandbox",
    "SandboxUnavailable", "get_sandbox", "self_test", "MODES",
]

MODES = ("auto", "isolated", "unsafe-dev")
log = logging.getLogger(__name__)


def get_sandbox(mode: str = "auto", *, run_self_test: bool = True):
    """A started, warm sandbox for this process (callers keep and reuse it; ``close()`` it at exit).

    ``mode`` is one of :data:`MODES`. Raises :class:`SandboxUnavailable` when isolation cannot be
    established or the self-test fails, ``ValueError`` for an unknown mode.
    """
    from grader.sandbox.forkserver import ForkServerSandbox
    from grader.sandbox.launcher import BwrapLauncher, DevLauncher, SlotLock

    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}; expected one of {', '.join(MODES)}")
    if mode == "unsafe-dev":
        log.warning("!!! SANDBOX MODE unsafe-dev: learner code runs WITHOUT isolation (no namespaces, "
                    "no seccomp, no cgroup, same uid as this process). Development only. !!!")
        sandbox = ForkServerSandbox(DevLauncher())
        sandbox.start()
        return sandbox
    try:
        slot = SlotLock()
    except (OSError, RuntimeError) as error:
        raise SandboxUnavailable(f"no sandbox slot: {error}") from error
    cgroup = _slot_cgroup(slot.slot)
    try:
        launcher = BwrapLauncher(slot.uid, slot.job_uid, cgroup)
    except (OSError, RuntimeError) as error:
        slot.release()
        if cgroup is not None:
            cgroup.remove()
        raise SandboxUnavailable(str(error)) from error
    sandbox = ForkServerSandbox(launcher, cgroup, on_close=slot.release)
    try:
        sandbox.start()
        problems = self_test(sandbox) if run_self_test else []
    except BaseException:
        sandbox.close()
        raise
    if problems:
        sandbox.close()
        raise SandboxUnavailable("sandbox self-test failed: " + "; ".join(problems))
    return sandbox


def _slot_cgroup(slot: int):
    from grader.sandbox.cgroups import CgroupUnavailable, SlotCgroup

    try:
        return SlotCgroup(slot)
    except CgroupUnavailable as error:
        log.warning("no memory+pids cgroup (%s): each job is limited to a single process "
                    "(RLIMIT_NPROC) with an address-space limit instead", error)
        return None
