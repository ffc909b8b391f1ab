"""A job holds no capability in any set, though its child drops only the capabilities the
server's bounding set still had (read once at the server's start) instead of all 64. (Read with
system calls: a job has no /proc.)"""
from __future__ import annotations

from grader.sandbox import Call, Limits


def test_every_capability_set_of_a_job_is_empty(sandbox):
    source = (
        "import ctypes\n"
        "def caps():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    header = (ctypes.c_uint32 * 2)(0x20080522, 0)\n"
        "    data = (ctypes.c_uint32 * 6)()\n"
        "    assert libc.capget(header, data) == 0\n"
        "    effective, permitted, inheritable = (data[n] | data[n + 3] << 32 for n in range(3))\n"
        "    bounding = sum(1 << n for n in range(64) if libc.prctl(23, n, 0, 0, 0) == 1)\n"
        "    ambient = sum(1 << n for n in range(64) if libc.prctl(47, 1, n, 0, 0) == 1)\n"
        "    return inheritable, permitted, effective, bounding, ambient\n"
    )
    result = sandbox.run(source, [Call(test="caps", function="caps")], Limits())
    assert result.status == "ok", result.message
    assert result.calls[0].value == (0, 0, 0, 0, 0)


def test_the_probe_sees_the_capabilities_a_process_holds():
    """The same reading in this (root) process finds capabilities: the probe can fail."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    assert libc.capget(header, data) == 0
    assert data[0] | data[3] << 32 != 0
    assert any(libc.prctl(23, n, 0, 0, 0) == 1 for n in range(64))
