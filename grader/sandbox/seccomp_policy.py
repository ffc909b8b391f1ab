"""The seccomp deny-lists of the sandbox: one for the pre-forked server, one for every job.

Two filters, both loaded by ``confine.py`` (filters stack: a job runs under both):

* the **server** filter, loaded by the server before it imports anything or accepts a job. It is
  the job filter minus ``mount`` and ``clone`` with ``CLONE_NEWPID | CLONE_NEWNS |
  CLONE_NEWIPC | CLONE_PIDFD``, which the server needs to start each job in a PID, mount and IPC
  namespace of its own, where the job mounts a fresh ``/tmp`` and an empty ``/proc`` (still
  inside the server's own user namespace: no host privilege is involved);
* the **job** filter, loaded by the job's process after it mounted its ``/tmp``, switched to the
  job's uid and dropped every capability, just before the learner's code is imported. It is
  inherited by every process the job starts.

A deny-list, following docs/references.md, "Sandbox" ("made every ctypes system-call attack fail
with EPERM"): tracing and cross-process memory access, every mount and namespace call, BPF,
perf, io_uring, keyrings, kernel modules and other administrative calls, System V IPC and POSIX
message queues (they would outlive a job), executing any program, sockets other than
``AF_UNIX``, and the terminal-injection ioctls ``TIOCSTI``/``TIOCLINUX`` (CVE-2017-5226 class).
``clone`` with any namespace flag is refused; ``clone3`` returns ``ENOSYS`` so the C library
falls back to ``clone``, whose flags the filter can inspect. System calls of other
architectures (i386 via ``int 0x80``, x32) kill the process (libseccomp's default bad-arch action).

Jobs are also denied every call that reads or moves state another job could see
(:data:`JOB_ONLY_DENIED`, :data:`JOB_DENIED_FCNTL`, :data:`JOB_DENIED_CLONE_FLAGS`): the
machine's load, free memory and process count (``sysinfo``), the kernel's global inode counters
(new pipes, memfds, AIO contexts and pidfds take their numbers from counters every process on the
machine moves), file locks, leases and change notifications on the files every slot shares
(``flock``, ``fcntl`` locks, ``inotify``), the time stamps of the shared device nodes
(``utimensat`` on ``/dev/null`` reached the host's ``/dev/null``), and page-cache residency of
shared files (``cachestat``, ``preadv2``/``pwritev2`` with ``RWF_NOWAIT``).

Built with pyseccomp (a ctypes wrapper of libseccomp) on the trusted side and exported as raw BPF.
"""
from __future__ import annotations

import errno
import os

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "add_key", "request_key", "keyctl", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "quotactl",
    "userfaultfd", "open_by_handle_at", "name_to_handle_at", "syslog", "lookup_dcookie",
    "fanotify_init", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "iopl", "ioperm", "vhangup", "setdomainname", "sethostname", "uselib", "nfsservctl",
    "landlock_create_ruleset", "memfd_secret",
    # No program is ever executed after the server starts (the filter is loaded by the server
    # itself, after its own exec): no shells, no setuid or other binaries, no fresh interpreters.
    "execve", "execveat",
    # System V IPC and POSIX message queues: objects that would outlive a job in the slot's IPC
    # namespace and could carry one job's inputs to the next.
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
    "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
)
CLONE_NAMESPACE_FLAGS = (
    0x10000000,  # CLONE_NEWUSER
    0x00020000,  # CLONE_NEWNS
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x08000000,  # CLONE_NEWIPC
    0x04000000,  # CLONE_NEWUTS
    0x02000000,  # CLONE_NEWCGROUP
    0x00000080,  # CLONE_NEWTIME
)
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
AF_UNIX = 1


#: Denied to jobs only. A job needs no socket, and an AF_UNIX socket lets it keep descriptors
#: (its own result pipes, a tmpfs) alive after its processes die, in flight (SCM_RIGHTS). The
#: others read or move state that another job (later in the slot, or in another slot at the same
#: time) could observe: see the module docstring.
JOB_ONLY_DENIED = (
    "socket", "socketpair",
    "sysinfo",  # load averages, free memory, number of processes, uptime: the whole machine's
    "pipe", "pipe2", "memfd_create", "io_setup", "pidfd_open",  # numbered by global counters
    "flock", "inotify_init", "inotify_init1",  # locks and watches on files every slot shares
    "utime", "utimes", "utimensat", "futimesat",  # time stamps of /dev/null & co. (the host's)
    "cachestat",  # page-cache residency of shared files
)
#: ``fcntl`` commands denied to jobs: record locks (``F_GETLK`` reports another process's lock),
#: open-file-description locks, leases and directory notifications.
JOB_DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
#: ``clone`` flags denied to jobs on top of the namespace flags: ``CLONE_PIDFD`` (a pidfd's inode
#: number is the machine-wide count of processes ever started).
JOB_DENIED_CLONE_FLAGS = (0x00001000,)
RWF_NOWAIT = 0x00000008  # preadv2/pwritev2: fail instead of reading from disk (a residency probe)
#: What the server's child may still do before it becomes the job: mount the job's /tmp and cover
#: /proc (server filter only).
SERVER_ALLOWED = ("mount",)
#: Namespaces the server may create for a job with ``clone`` (``unshare`` is denied).
JOB_NAMESPACE_FLAGS = (0x20000000, 0x00020000, 0x08000000)  # CLONE_NEWPID, NEWNS, NEWIPC


def build_filter(kind: str = "job"):
    """The ``kind`` (``"job"`` or ``"server"``) filter as a ``pyseccomp.SyscallFilter`` (default
    action: allow). Raises ``ValueError`` for another kind."""
    import pyseccomp as seccomp

    if kind not in ("job", "server"):
        raise ValueError(f"unknown seccomp filter kind {kind!r}")
    deny = seccomp.ERRNO(errno.EPERM)
    policy = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED + (JOB_ONLY_DENIED if kind == "job" else ()):
        if kind == "server" and name in SERVER_ALLOWED:
            continue
        try:
            policy.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):
            pass  # a system call this kernel/architecture does not have
    for flag in CLONE_NAMESPACE_FLAGS:
        if kind == "job" or flag not in JOB_NAMESPACE_FLAGS:
            policy.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    policy.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    if kind == "job":
        for flag in JOB_DENIED_CLONE_FLAGS:
            policy.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
        for command in JOB_DENIED_FCNTL:
            policy.add_rule(deny, "fcntl",  # the kernel reads an int: compare the low 32 bits
                            seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
        for name in ("preadv2", "pwritev2"):
            policy.add_rule(deny, name, seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    policy.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket",
                    seccomp.Arg(0, seccomp.NE, AF_UNIX))
    for request in (TIOCSTI, TIOCLINUX):
        policy.add_rule(deny, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    return policy


def compiled(kind: str) -> bytes:
    """The ``kind`` filter as raw BPF (``struct sock_filter`` array, host byte order)."""
    import tempfile

    with tempfile.TemporaryFile() as stream:  # export_bpf needs a real descriptor
        build_filter(kind).export_bpf(stream)
        stream.seek(0)
        return stream.read()


def bpf_descriptor() -> int:
    """A readable descriptor positioned at the start of both compiled programs, each preceded by
    its length (uint32, big endian): the server filter, then the job filter (read by
    ``confine.read_programs``). The caller closes it. Raises ``OSError``/``RuntimeError`` if
    libseccomp is unavailable."""
    import struct

    fd = os.memfd_create("grader-seccomp", 0)
    try:
        with os.fdopen(os.dup(fd), "wb") as stream:
            for kind in ("server", "job"):
                program = compiled(kind)
                stream.write(struct.pack("!I", len(program)) + program)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
