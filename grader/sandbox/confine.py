"""The last confinement steps, taken by the server inside bubblewrap before it imports anything
or accepts a job (standard library + ctypes only; bind-mounted into the sandbox):

1. a new **user namespace** mapping only the slot's own unprivileged uid/gid to themselves
   (``setgroups`` denied), so nothing in the sandbox can act on host objects owned by any other
   uid. It is created here, by the unprivileged process itself, because a user namespace created
   by bubblewrap running as root would map the sandbox user to host root (sandbox.md);
2. every **capability** dropped again (a new user namespace grants a full set inside it): the
   bounding set, the ambient set, then permitted/effective/inheritable;
3. the **seccomp** filter (raw BPF compiled on the trusted side by ``seccomp_policy.py``), which
   also forbids creating further namespaces. Loaded last because it refuses ``unshare``.

``no_new_privs`` was already set by ``setpriv``. Any failure raises ``OSError``: the server then
exits, the trusted side sees no "ready" and refuses to grade (fail closed).
"""
from __future__ import annotations

import ctypes
import os

CLONE_NEWUSER = 0x10000000
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63

_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def enter_user_namespace() -> None:
    """Unshare a user namespace mapping this process's uid and gid to themselves."""
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    with open("/proc/self/setgroups", "w") as handle:
        handle.write("deny")
    with open("/proc/self/uid_map", "w") as handle:
        handle.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as handle:
        handle.write(f"{gid} {gid} 1")


def drop_capabilities() -> None:
    """Empty the bounding, ambient, permitted, effective and inheritable capability sets."""
    for capability in range(LAST_CAPABILITY + 1):
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            if ctypes.get_errno() != 22:  # EINVAL: no such capability on this kernel
                _check(-1, f"PR_CAPBSET_DROP {capability}")
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def load_seccomp(fd: int) -> None:
    """Load the raw BPF program read from ``fd`` as a seccomp filter (needs no_new_privs)."""
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    program = b"".join(chunks)
    if not program or len(program) % ctypes.sizeof(_SockFilter):
        raise OSError(22, "seccomp program is empty or malformed")
    count = len(program) // ctypes.sizeof(_SockFilter)
    instructions = (_SockFilter * count).from_buffer_copy(program)
    fprog = _SockFprog(count, ctypes.cast(instructions, ctypes.POINTER(_SockFilter)))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "PR_SET_SECCOMP")


def confine(seccomp_fd: int) -> None:
    """All three steps, in the only order that works."""
    enter_user_namespace()
    drop_capabilities()
    load_seccomp(seccomp_fd)
