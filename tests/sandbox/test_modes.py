"""Mode selection fails closed: isolation or nothing, unless development mode is asked for by name;
and the self-test recognises a sandbox that does not isolate."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from grader.sandbox import Call, SandboxUnavailable, get_sandbox, self_test
from grader.sandbox import launcher as launcher_module


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown sandbox mode"):
        get_sandbox("none")


def test_auto_mode_without_bubblewrap_raises_instead_of_running_unisolated(monkeypatch):
    monkeypatch.setattr(launcher_module.shutil, "which", lambda tool, path=None: None)
    with pytest.raises(SandboxUnavailable, match="bwrap is not installed"):
        get_sandbox("auto")


def test_auto_mode_raises_when_the_self_test_finds_a_problem(monkeypatch):
    import grader.sandbox as package

    monkeypatch.setattr(package, "self_test", lambda sandbox: ["sandboxed code runs as root"])
    with pytest.raises(SandboxUnavailable, match="self-test failed: sandboxed code runs as root"):
        get_sandbox("auto")


def test_auto_mode_raises_when_the_server_cannot_start(monkeypatch):
    monkeypatch.setattr(launcher_module, "interpreter", lambda: "/nonexistent/python3")
    with pytest.raises(SandboxUnavailable, match="did not start"):
        get_sandbox("auto")


def test_self_test_passes_on_the_isolated_sandbox(sandbox):
    assert self_test(sandbox) == []


def test_development_mode_warns_loudly_and_its_self_test_lists_what_is_missing(caplog):
    with caplog.at_level(logging.WARNING):
        dev = get_sandbox("unsafe-dev")
    try:
        assert "WITHOUT isolation" in caplog.text
        result = dev.run("def f(x):\n    return x + 1\n", [Call("t", "f", (np.zeros(2),))])
        assert np.array_equal(result.calls[0].value, np.ones(2))
        problems = self_test(dev)
        assert any("network" in problem for problem in problems)
        assert any("outside the sandbox" in problem for problem in problems)
        assert "no seccomp filter is loaded" in problems
    finally:
        dev.close()


def test_two_sandboxes_get_different_unprivileged_uids(sandbox):
    other = get_sandbox("auto", run_self_test=False)
    try:
        assert other.launcher.uid != sandbox.launcher.uid
        assert min(other.server_uid, sandbox.server_uid) >= 61000
    finally:
        other.close()


def test_a_slot_whose_uid_still_owns_a_process_is_passed_over(tmp_path):
    """A closed sandbox's server can linger (a zombie) for seconds: a new sandbox must not take
    its slot, or it would meet that process (and count it as its own)."""
    import os
    import time

    from grader.sandbox.launcher import SlotLock

    first = SlotLock(lock_dir=tmp_path)
    free_slot, uid = first.slot, first.uid
    first.release()
    ready, told = os.pipe()
    child = os.fork()
    if child == 0:  # a process of the slot's server uid, left behind
        os.close(ready)
        os.setgid(uid)
        os.setuid(uid)
        os.write(told, b"1")  # it runs as the slot's uid now
        time.sleep(30)
        os._exit(0)
    os.close(told)
    try:
        # wait until the child has taken the uid (a byte, or end of file if it died first),
        # however long the machine takes to run it
        assert os.read(ready, 1) == b"1", "the child could not take the slot's uid"
        os.close(ready)
        second = SlotLock(lock_dir=tmp_path)
        assert second.slot != free_slot
        second.release()
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
    third = SlotLock(lock_dir=tmp_path)
    assert third.slot == free_slot  # free again once the process is gone
    third.release()
