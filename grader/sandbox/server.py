"""The pre-forked server that runs inside the sandbox and starts every job.

Started (by ``launcher.py``) from an empty environment, inside bubblewrap's namespaces as the
slot's unprivileged *server* uid; with ``--seccomp-fd`` it first enters its own user namespace
(mapping only the slot's server and job uids), keeps only the capabilities a job's set-up needs
and loads the server seccomp filter (``confine.py``). It imports NumPy and the runner once, then
loops on its control socket (``--control-fd``, an ``AF_UNIX`` ``SOCK_SEQPACKET`` socket):

* ``{"op": "run", "limits": {...}}`` with four descriptors attached (``SCM_RIGHTS``): job pipe
  (read end), result pipe, output pipe and status pipe (write ends). The server first checks
  that its own settings (rlimits, nice value, scheduling, affinity, I/O priority, OOM score,
  timer slack) are those it started with; if any drifted it answers ``{"op": "drifted"}`` and
  exits, so no job inherits them. Otherwise it starts the job's *init* (:func:`init_main`): PID
  1 of a new PID namespace with its own mount and IPC namespaces (``confine.clone_job_init``),
  which mounts a fresh ``/tmp`` and an empty ``/proc``, forks the job's process and reports its
  exit on the status pipe. The job's process (:func:`child_main`) switches to the slot's *job*
  uid (which can act on no process of the server uid), drops every capability, loads the job
  seccomp filter, applies the per-job rlimits, maps the descriptors to 0 (job), 1 and 2 (output)
  and 3 (results), closes everything else and runs ``runner.run_job``. The server never reads
  the job itself, so no job's inputs stay in its memory for the next job's processes to find.
* ``{"op": "kill"}``, sent by the trusted side once the job ended (its status pipe closed) or
  must end (a limit): the server kills the init and everything in the sandbox (``kill(-1,
  SIGKILL)``: as PID 1 of its PID namespace, and as another uid, it is immune to signals sent
  from a job), reaps them and replies ``{"op": "exit"}``.

The server learns nothing about a job: not the PID of its init (pids are numbered by a counter
that every process of an earlier job moved), not its exit status, CPU time or memory, not when
it ended: each job is the same exchange of messages. So the memory the next job's processes
inherit from it is the same whatever earlier jobs did. The job's files and IPC objects vanish
with its namespaces: there is nothing to clean up. Nothing the server or the init says is
trusted for a verdict; the trusted side only uses it to pick a message and to know when the next
job may start.

Imports only the standard library, NumPy, ``wire``, ``runner`` and ``confine``.
"""
from __future__ import annotations

import argparse
import array
import json
import os
import resource
import signal
import socket
import struct
import sys

MAX_CONTROL = 64 * 1024
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4


_LIBC = []


def _c_library():
    """The C library through ctypes, loaded once: a ``ctypes.CDLL`` made per job would leave a
    cycle of objects behind every job until the collector ran, so the server's memory would
    differ with the number of jobs it served."""
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _prctl(option: int, value: int) -> None:
    import ctypes

    if _c_library().prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _send(sock: socket.socket, payload: dict) -> None:
    sock.send(json.dumps(payload).encode("ascii"))


def _receive(sock: socket.socket) -> tuple[dict | None, list[int]]:
    """One control message and any descriptors attached to it; ``(None, [])`` at end of file."""
    fds = array.array("i")
    data, ancillary, _flags, _address = sock.recvmsg(MAX_CONTROL, socket.CMSG_SPACE(16 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    if not data:
        return None, list(fds)
    return json.loads(data), list(fds)


def apply_limits(limits: dict, baseline_address_space: int) -> None:
    """Per-job rlimits (applied in the child). ``memory_bytes`` caps the address space *added* to
    the pre-imported interpreter's own; CPU gets a soft limit (SIGXCPU) and a hard one a second
    later (SIGKILL); processes are counted per uid, which is unique per worker slot."""
    memory = int(limits["memory_bytes"]) + baseline_address_space
    cpu = max(1, int(-(-float(limits["cpu_seconds"]) // 1)))
    settings = {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory, memory),
        resource.RLIMIT_DATA: (memory, memory),
        resource.RLIMIT_FSIZE: (int(limits["file_bytes"]), int(limits["file_bytes"])),
        resource.RLIMIT_NOFILE: (64, 64),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NPROC: (int(limits["nproc"]), int(limits["nproc"])),
        resource.RLIMIT_MEMLOCK: (0, 0),
        resource.RLIMIT_MSGQUEUE: (0, 0),
    }
    for kind, value in settings.items():
        resource.setrlimit(kind, value)


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class Confinement:
    """How each job is confined: ``job_uid`` and the job seccomp program in isolated mode
    (``None`` in development mode, where jobs run as the server's own uid, in its namespaces)."""

    def __init__(self, job_uid: int | None = None, job_program: bytes | None = None,
                 bounding: tuple[int, ...] | None = None):
        self.job_uid = job_uid
        self.job_program = job_program
        self.bounding = bounding  # the server's bounding set once confined (None: unknown)


STATUS_RECORD = struct.Struct("!id")  # the job's raw wait status, its CPU seconds


def init_main(limits: dict, job_fd: int, result_fd: int, output_fd: int, status_fd: int,
              confinement: Confinement) -> None:
    """The job's init (PID 1 of the job's own PID namespace in isolated mode): a new session,
    the job's fresh ``/tmp`` and empty ``/proc``, the packages its item does not allow covered
    (``limits["packages"]``: those it allows), then it forks the job's process, waits for it
    and writes its wait status and CPU seconds (:data:`STATUS_RECORD`) on ``status_fd``, which
    only the trusted side reads. Never returns: when it exits, the kernel kills whatever the job
    left running in its namespace. A failure before the fork exits with status 70 and no record
    (the trusted side sees no first frame: an infrastructure fault, never the learner's)."""
    try:
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        baseline = _address_space()  # read before /proc is covered
        if confinement.job_uid is not None:
            import confine

            confine.mount_job_filesystems(int(limits["tmp_bytes"]), int(limits["tmp_inodes"]),
                                          confinement.job_uid)
            confine.cover_packages(set(limits.get("packages", ())))
        pid = os.fork()
    except BaseException as error:  # noqa: BLE001 - report on the server's stderr, then exit
        try:
            os.write(2, f"job set-up failed: {type(error).__name__}: {error}\n".encode())
        finally:
            os._exit(70)
    if pid == 0:
        os.close(status_fd)
        child_main(limits, job_fd, result_fd, output_fd, confinement, baseline)
    try:
        for fd in (job_fd, result_fd, output_fd):
            os.close(fd)
        _pid, status, usage = os.wait4(pid, 0)
        os.write(status_fd, STATUS_RECORD.pack(status, usage.ru_utime + usage.ru_stime))
    finally:
        os._exit(0)


def child_main(limits: dict, job_fd: int, result_fd: int, output_fd: int,
               confinement: Confinement, baseline_address_space: int) -> None:
    """In the job's process (forked by its init): confinement (job uid, no capabilities,
    seccomp), descriptors, limits, then the job. Never returns. Any failure before the runner's
    first frame exits with status 70/71 and no frame, which the trusted side counts as an
    infrastructure fault."""
    status = 70
    try:
        if confinement.job_uid is not None:
            import confine

            os.setsid()  # its own session and process group (development mode: the init's)
            confine.confine_job(confinement.job_uid, confinement.job_program,
                                confinement.bounding)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
    except BaseException as error:  # noqa: BLE001 - report on the server's stderr, then exit
        try:
            os.write(2, f"job set-up failed: {type(error).__name__}: {error}\n".encode())
        finally:
            os._exit(status)
    try:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGPROF):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # RLIMIT_FSIZE shows as OSError(EFBIG)
        os.dup2(job_fd, 0)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.dup2(result_fd, 3)
        os.closerange(4, max(1 << 16, os.sysconf("SC_OPEN_MAX")))
        sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stdin = open(os.devnull)
        apply_limits(limits, baseline_address_space)
        import runner

        runner.run_job(0, 3)
        status = 0
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
        status = 71
    finally:
        os._exit(status)


_P_ALL, _WEXITED, _WALL = 0, 4, 0x40000000


def _start_init(pid1: bool) -> int:
    """Fork the job's init; returns 0 in the init, else its PID (development mode) or -1 (in
    isolated mode the server is told no PID: see ``confine.clone_job_init``)."""
    if not pid1:
        return os.fork()
    import confine

    return 0 if confine.clone_job_init() else -1


def _end_job(pid1: bool, init_pid: int) -> None:
    """Kill the job's init and everything the job started, and reap them, reading nothing about
    them. In isolated mode, as PID 1 of the slot's namespace and as another uid, the server is
    immune to the signals it sends every other process (``kill(-1)``). (The job's files and IPC
    objects lived in its own namespaces, which the kernel drops with its last process.)"""
    if pid1:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        while _c_library().waitid(_P_ALL, 0, None, _WEXITED | _WALL) == 0:
            pass  # no siginfo buffer: nothing of the reaped processes enters this process
        return
    try:  # development mode: the init's session is all we can find
        os.killpg(init_pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    while True:
        try:
            pid, _status = os.waitpid(-1, 0)
        except ChildProcessError:
            break


# -- drift: the server's own settings must be exactly what they were at start ----------------

_IOPRIO_GET = {"x86_64": 252, "aarch64": 31, "arm64": 31}
IOPRIO_WHO_PROCESS = 1
PR_GET_TIMERSLACK = 30


def process_settings() -> dict:
    """This process's rlimits, nice value, scheduling policy and priority, CPU affinity, I/O
    priority, OOM score adjustment and timer slack: everything a job forked from it inherits and
    that another process could change (compared with the start-up values before every fork)."""
    import platform

    libc = _c_library()
    settings = {f"rlimit {name}": resource.getrlimit(getattr(resource, name))
                for name in sorted(dir(resource)) if name.startswith("RLIMIT_")}
    settings["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    settings["scheduler"] = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    settings["affinity"] = sorted(os.sched_getaffinity(0))
    number = _IOPRIO_GET.get(platform.machine())
    settings["ioprio"] = libc.syscall(number, IOPRIO_WHO_PROCESS, 0) if number else None
    with open("/proc/self/oom_score_adj") as handle:
        settings["oom_score_adj"] = handle.read().strip()
    settings["timerslack"] = libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)
    return settings


def drifted(baseline: dict) -> list[str]:
    """The names of the settings that differ from ``baseline`` (empty: none)."""
    now = process_settings()
    return sorted(name for name in baseline if now.get(name) != baseline[name])


def serve(control_fd: int, pid1: bool, confinement: Confinement = Confinement(),
          sock: socket.socket | None = None) -> None:
    """Answer control messages until the control socket closes. Before every fork the server
    compares its own settings with those it started with; if any drifted, it says so
    (``{"op": "drifted", ...}``) and exits instead of forking a job that would inherit them.

    Every job is the same exchange, whatever the job did: ``run`` (four descriptors), the
    fork of the job's init, ``kill`` (the trusted side sends it when the job ended or must end),
    the reaping, ``exit``. The server reads nothing about the job (no PID, status, resource
    usage or timing of it), so what it holds when it forks the next job, which that job's
    processes inherit, is the same after every job."""
    sock = sock or socket.socket(fileno=control_fd)
    baseline = process_settings()
    _send(sock, {"op": "ready", "uid": os.getuid(), "pid": os.getpid()})
    while True:
        message, fds = _receive(sock)
        if message is None:
            return
        if message.get("op") != "run" or len(fds) != 4:
            for fd in fds:
                os.close(fd)
            _send(sock, {"op": "error", "message": "bad request"})
            continue
        changed = drifted(baseline)
        if changed:
            for fd in fds:
                os.close(fd)
            _send(sock, {"op": "drifted", "settings": changed})
            return
        try:
            init_pid = _start_init(pid1)
        except OSError as error:
            init_pid = -1
            os.write(2, f"cannot start the job's init: {error}\n".encode())
        if init_pid == 0:
            sock.close()
            init_main(message["limits"], *fds, confinement)
        for fd in fds:
            os.close(fd)
        while True:  # until the trusted side ends the job
            request, extra = _receive(sock)
            for fd in extra:
                os.close(fd)
            if request is None or request.get("op") == "kill":
                break
        _end_job(pid1, init_pid)
        if request is None:
            return
        _send(sock, {"op": "exit"})


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -I -S server.py --control-fd N [--path DIR]... [--pid1
    --seccomp-fd N --server-uid U --job-uid J]``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--path", action="append", default=[])
    parser.add_argument("--pid1", action="store_true")
    parser.add_argument("--seccomp-fd", type=int, default=None)
    parser.add_argument("--server-uid", type=int, default=None)
    parser.add_argument("--job-uid", type=int, default=None)
    options = parser.parse_args(argv)
    if options.pid1 and os.getpid() != 1:
        raise SystemExit("--pid1 given but this process is not PID 1 of its namespace")
    for path in reversed(options.path):
        sys.path.insert(0, path)
    sock = socket.socket(fileno=options.control_fd)
    confinement = Confinement()
    if options.seccomp_fd is not None:
        import confine

        if options.job_uid is None or options.server_uid is None:
            raise SystemExit("--seccomp-fd needs --server-uid and --job-uid")
        server_program, job_program = confine.read_programs(options.seccomp_fd)

        def request_map() -> None:
            _send(sock, {"op": "map"})
            reply, fds = _receive(sock)
            for fd in fds:
                os.close(fd)
            if not reply or reply.get("op") != "mapped":
                raise SystemExit("the trusted side did not map the user namespace")

        confine.confine_server(request_map, options.server_uid, options.job_uid, server_program)
        confinement = Confinement(options.job_uid, job_program, confine.bounding_set())
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as PID 1, default-action signals are ignored
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    _prctl(PR_SET_DUMPABLE, 0)  # no /proc/1/mem or /proc/1/environ for the jobs
    import numpy  # noqa: F401 - the point of pre-forking: imported once, shared by every job
    import numpy.lib.format  # noqa: F401
    import traceback  # noqa: F401
    import linecache  # noqa: F401
    import runner
    import wire  # noqa: F401

    runner.add_numpy_1_aliases()  # before the snapshots: every job inherits them, guarded
    runner.prepare()  # the runner's namespace snapshots, taken once and shared by every job

    serve(options.control_fd, options.pid1, confinement, sock)


if __name__ == "__main__":
    main()
