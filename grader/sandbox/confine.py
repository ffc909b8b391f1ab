"""The confinement steps taken inside bubblewrap by the server and by each job's child (standard
library + ctypes only; bind-mounted into the sandbox).

The server (``confine_server``), before it imports anything or accepts a job:

1. enters a new **user namespace** and asks the trusted side (over the control socket) to map
   exactly two unprivileged host ids into it, each to itself: the slot's *server* uid and the
   slot's *job* uid (``setgroups`` denied). Only a privileged writer may map more than its own
   uid, which is why the trusted side writes the map; a user namespace created by bubblewrap
   running as root would map the sandbox user to host root instead (sandbox.md);
2. keeps, inside that namespace only, the capabilities it needs to set up a job and nothing
   else: ``CAP_SETUID``/``CAP_SETGID`` (switch the child to the job uid), ``CAP_SETPCAP`` (empty
   the child's bounding set), ``CAP_SYS_ADMIN`` (the child's private mount and IPC namespaces and
   its fresh ``/tmp``) and ``CAP_KILL`` (kill every job process after the job);
3. loads the *server* seccomp filter (``seccomp_policy.py``).

Each job (``clone_job``, then ``mount_job_filesystems``, ``cover_packages`` and ``confine_job``,
all in the job's own process) is PID 1 of a new **PID namespace** with its own **mount and IPC
namespaces**, where it mounts a fresh, size- and inode-limited tmpfs on ``/tmp`` and an empty
read-only tmpfs over ``/proc``, and covers the packages its item does not allow. It and
everything it starts see only the job's own processes (PID 1 is the job itself in every job),
no counter or statistic of the machine or of the server (``/proc/1/stat``, ``/proc/loadavg``,
``/proc/stat``, ``/proc/uptime`` ...), no file and no System V or POSIX IPC object of an earlier
job; the kernel drops it all with the job, whatever permissions it set, and there is nothing to
clean up. (A fresh ``procfs`` for the job's PID namespace is not possible here: in a mount
namespace owned by an unprivileged user namespace the kernel refuses a new ``proc`` mount while
bubblewrap's ``/proc`` has locked submounts, and the job needs none.) The server learns nothing
about the job as a Python value: not its PID (a number that the processes of earlier jobs
moved), only a pidfd; the kernel writes the job's status and resource usage into buffers that
the server copies to the trusted side and zeroes.

Then the job's process (``confine_job``), before the learner's code:

1. switches to the **job uid**, which differs from the server's: the kernel then refuses every
   call that would act on the server (``prlimit``, ``setpriority``, ``sched_setaffinity``,
   ``sched_setscheduler``, ``ioprio_set``, ``kill``, ...), and the server is not even in the
   job's PID namespace, so no job can change the server that later jobs are forked from;
2. empties every capability set and loads the *job* seccomp filter on top of the server's.

``no_new_privs`` was already set by ``setpriv``. Any failure raises ``OSError``: the server then
exits (the trusted side sees no "ready" and refuses to grade), or the child exits before sending
its first frame (the trusted side counts that as an infrastructure fault, never the learner's).
"""
from __future__ import annotations

import ctypes
import os
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_CHILD_SETTID = 0x01000000
CLONE_PIDFD = 0x00001000
SIGCHLD = 17
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 16384, 1 << 18
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63
CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP, CAP_SYS_ADMIN = 5, 6, 7, 8, 21
SERVER_CAPABILITIES = (CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP, CAP_SYS_ADMIN)
EINVAL = 22

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p)
#: ``syscall(2)`` returning nothing: the parent of :func:`clone_job` never sees the child's PID
#: (ctypes would otherwise make it a Python int, which the next job's process inherits).
_syscall_void = ctypes.CDLL(None, use_errno=True).syscall
_syscall_void.restype = None
#: ``clone``'s number and whether its child-TID pointer is its 4th or 5th argument.
_CLONE = {"x86_64": (56, 3), "aarch64": (220, 4), "arm64": (220, 4)}


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


# -- seccomp ---------------------------------------------------------------------------------


def read_programs(fd: int) -> tuple[bytes, bytes]:
    """The server and job BPF programs from ``fd`` (each preceded by its uint32 big-endian
    length, see ``seccomp_policy.bpf_descriptor``); closes ``fd``. Raises ``OSError``."""
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    data = b"".join(chunks)
    programs = []
    offset = 0
    for _ in range(2):
        if offset + 4 > len(data):
            raise OSError(EINVAL, "seccomp programs are truncated")
        (length,) = struct.unpack_from("!I", data, offset)
        programs.append(data[offset + 4:offset + 4 + length])
        offset += 4 + length
    if offset != len(data):
        raise OSError(EINVAL, "trailing bytes after the seccomp programs")
    return programs[0], programs[1]


def load_seccomp(program: bytes) -> None:
    """Load the raw BPF ``program`` as a seccomp filter (needs no_new_privs). Raises ``OSError``."""
    size = ctypes.sizeof(_SockFilter)
    if not program or len(program) % size:
        raise OSError(EINVAL, "seccomp program is empty or malformed")
    instructions = (_SockFilter * (len(program) // size)).from_buffer_copy(program)
    fprog = _SockFprog(len(program) // size, ctypes.cast(instructions, ctypes.POINTER(_SockFilter)))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "PR_SET_SECCOMP")


# -- capabilities ----------------------------------------------------------------------------


def bounding_set() -> tuple[int, ...]:
    """The capabilities in this process's bounding set (``PR_CAPBSET_READ``)."""
    return tuple(capability for capability in range(LAST_CAPABILITY + 1)
                 if _libc.prctl(PR_CAPBSET_READ, capability, 0, 0, 0) == 1)


def drop_bounding(capabilities) -> None:
    """Remove ``capabilities`` from the bounding set (needs ``CAP_SETPCAP``). Raises ``OSError``."""
    for capability in capabilities:
        if _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            if ctypes.get_errno() != EINVAL:  # EINVAL: no such capability on this kernel
                _check(-1, f"PR_CAPBSET_DROP {capability}")


def _set_capabilities(keep: tuple[int, ...], bounding=None) -> None:
    """Bounding set reduced to ``keep`` (``bounding``: the capabilities it may still hold, when
    known; default every one), ambient set cleared, permitted = effective = ``keep``,
    inheritable empty."""
    present = range(LAST_CAPABILITY + 1) if bounding is None else bounding
    drop_bounding(c for c in present if c not in keep)
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    mask = 0
    for capability in keep:
        mask |= 1 << capability
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = mask & 0xFFFFFFFF
    data[1].effective = data[1].permitted = mask >> 32
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def drop_capabilities(bounding=None) -> None:
    """Empty the bounding, ambient, permitted, effective and inheritable capability sets
    (``bounding``: the capabilities the bounding set may still hold, when known)."""
    _set_capabilities((), bounding)


# -- the server ------------------------------------------------------------------------------


def enter_user_namespace(request_map, server_uid: int, job_uid: int) -> None:
    """Unshare a user namespace, deny ``setgroups``, have ``request_map()`` get the trusted side
    to write the two-id map, and check that exactly ``server_uid`` and ``job_uid`` are mapped
    (each to itself). Raises ``OSError``."""
    _check(_libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    with open("/proc/self/setgroups", "w") as handle:
        handle.write("deny")
    request_map()
    for kind in ("uid", "gid"):
        with open(f"/proc/self/{kind}_map") as handle:
            rows = sorted(tuple(int(n) for n in line.split()) for line in handle if line.strip())
        expected = sorted([(server_uid, server_uid, 1), (job_uid, job_uid, 1)])
        if rows != expected:
            raise OSError(EINVAL, f"{kind}_map is {rows}, expected {expected}")
    if os.getuid() != server_uid or os.getgid() != server_uid:
        raise OSError(EINVAL, "the server does not run as the slot's server uid")


def confine_server(request_map, server_uid: int, job_uid: int, server_program: bytes) -> None:
    """The server's three steps (see the module docstring), in the only order that works."""
    enter_user_namespace(request_map, server_uid, job_uid)
    _set_capabilities(SERVER_CAPABILITIES)
    load_seccomp(server_program)


# -- each job --------------------------------------------------------------------------------


def clone_job(pidfd) -> bool:
    """Fork the job's process in a new PID, mount and IPC namespace (``clone`` with
    ``CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_PIDFD``), like ``fork()`` otherwise.
    Returns True in the child (PID 1 of its namespace), False in the parent, which gets a pidfd
    in ``pidfd`` (a ``ctypes.c_int``) and nothing else: no PID, so the server's memory, which
    the next job's process inherits, holds no number that earlier jobs' processes moved.
    Raises ``OSError``.

    A raw ``clone`` from Python: the server is single-threaded and holds no lock here, so the
    bookkeeping ``os.fork()`` adds (re-initialising locks and threads, at-fork hooks) has nothing
    to do; the C library's cached thread id stays right because the server and the child are
    both thread 1 of their namespaces."""
    import platform

    number, tid_argument = _CLONE.get(platform.machine(), (None, None))
    if number is None:
        raise OSError(EINVAL, f"no clone system call number for {platform.machine()}")
    child_tid = ctypes.c_int(0)
    arguments = [ctypes.c_ulong(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_PIDFD
                                | CLONE_CHILD_SETTID | SIGCHLD), None, ctypes.byref(pidfd),
                 None, None]
    arguments[tid_argument] = ctypes.byref(child_tid)  # written in the child's memory only
    ctypes.set_errno(0)
    _syscall_void(number, *arguments)
    if child_tid.value == 1:
        return True
    error = ctypes.get_errno()
    if error or pidfd.value < 0:
        raise OSError(error, f"clone(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC): "
                             f"{os.strerror(error)}")
    return False


def mount_job_filesystems(tmp_bytes: int, tmp_inodes: int, job_uid: int) -> None:
    """In the job's process (its own mount namespace), before it drops its capabilities: every
    mount private, a fresh tmpfs of ``tmp_bytes`` bytes and ``tmp_inodes`` inodes on ``/tmp``
    owned by ``job_uid`` (mode 0700), and an empty read-only tmpfs over ``/proc``. Raises
    ``OSError``."""
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = (f"size={int(tmp_bytes)},nr_inodes={int(tmp_inodes)},mode=0700,"
               f"uid={job_uid},gid={job_uid}")
    _check(_libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       options.encode("ascii")), "mount tmpfs on /tmp")
    _check(_libc.mount(b"tmpfs", b"/proc", b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       b"size=4096,nr_inodes=1,mode=0555"), "mount an empty tmpfs over /proc")


def cover_packages(keep, root: str = "/sandbox/extra") -> None:
    """In the job's process, before it drops its capabilities: cover every package folder
    under ``root`` (``launcher.SANDBOX_EXTRA``:
    the packages some item allows) that is not in ``keep`` (the packages this job's item allows)
    with an empty read-only tmpfs, so the job cannot import it whatever it appends to
    ``sys.path``. Raises ``OSError``."""
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        return
    for name in names:
        if name not in keep:
            _check(_libc.mount(b"tmpfs", os.path.join(root, name).encode(), b"tmpfs",
                               MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                               b"size=4096,nr_inodes=1,mode=0555"), f"cover {root}/{name}")


def confine_job(job_uid: int, job_program: bytes, bounding=None) -> None:
    """The job process's last steps (see the module docstring): job uid, no capabilities, job
    seccomp filter, working directory ``/tmp`` (mounted fresh just before). Raises ``OSError``.

    ``bounding``: the server's bounding set as it was after :func:`confine_server` (a bounding
    set only ever shrinks, so the job's holds at most these); without it every capability
    number is dropped, 64 system calls instead of about 5."""
    present = range(LAST_CAPABILITY + 1) if bounding is None else bounding
    drop_bounding(present)  # needs CAP_SETPCAP: before giving it up
    os.setresgid(job_uid, job_uid, job_uid)
    os.setresuid(job_uid, job_uid, job_uid)
    drop_capabilities(bounding=())  # a uid change between non-root ids keeps capabilities
    if any(_libc.prctl(PR_CAPBSET_READ, capability, 0, 0, 0) != 0 for capability in present):
        raise OSError(EINVAL, "a capability is left in the job's bounding set")
    os.chdir("/tmp")  # the working directory: the job's own fresh tmpfs
    load_seccomp(job_program)
