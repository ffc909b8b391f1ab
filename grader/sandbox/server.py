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
  exits, so no job inherits them. Otherwise it forks the job (``confine.clone_job``): PID 1 of
  a new PID namespace with its own mount and IPC namespaces, which (:func:`child_main`) mounts a
  fresh ``/tmp`` and an empty ``/proc``, covers the packages its item does not allow, switches
  to the slot's *job* uid (which can act on no process of the server uid), drops every
  capability, loads the job seccomp filter, applies the per-job rlimits, maps the descriptors
  to 0 (job), 1 and 2 (output) and 3 (results), closes everything else and runs
  ``runner.run_job``. The server never reads the job itself, so no job's inputs stay in its
  memory for the next job's process to find.
* ``{"op": "kill"}`` kills the running job (and, as it is PID 1 of its namespace, everything it
  started).

When the job has ended (or was killed) the server reaps it, copies the kernel's siginfo and
resource usage of it to the status pipe (read by the trusted side only) without making Python
values of them, zeroes them, kills anything else in the sandbox (``kill(-1, SIGKILL)``: as PID 1
of its PID namespace, and as another uid, it is immune to signals sent from a job) and replies
``{"op": "exit"}``. So the server learns nothing of a job that the next one could read: not its
PID (pids are numbered by a counter that every process of an earlier job moved), not its exit
status, CPU time or memory; a job's variables live in :func:`_serve_job`'s frame, gone before
the next job is forked. The job's files and IPC objects vanish with its namespaces: there is
nothing to clean up. Nothing the server says is trusted for a verdict; the trusted side only
uses it to pick a message and to know when the next job may start.

Imports only the standard library, NumPy, ``wire``, ``runner`` and ``confine``.
"""
from __future__ import annotations

import argparse
import array
import json
import os
import resource
import select
import signal
import socket
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


def _exit_on(*numbers: int) -> None:
    """End the process at once with exit status ``number`` when it gets one of these signals:
    a C-level handler (the C library's ``_exit``), because the job is PID 1 of its namespace,
    where the kernel ignores a signal whose action is the default one (SIGPROF, the runner's
    per-test CPU timer, and SIGXCPU, the soft RLIMIT_CPU), and because a Python handler would
    wait for a long NumPy call to return. The trusted side reads exit status SIGPROF or SIGXCPU
    as the CPU limit (``collect.Collector._cpu_killed``)."""
    import ctypes

    libc = _c_library()
    libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
    libc.signal.restype = ctypes.c_void_p
    failed = ctypes.c_void_p(-1).value  # SIG_ERR
    for number in numbers:
        if libc.signal(int(number), ctypes.cast(libc._exit, ctypes.c_void_p)) == failed:
            raise OSError(ctypes.get_errno(), f"signal({number}) failed")


def child_main(limits: dict, job_fd: int, result_fd: int, output_fd: int,
               confinement: Confinement) -> None:
    """In the job's process (isolated: PID 1 of its own PID, mount and IPC namespace): a new
    session, the job's fresh ``/tmp``, an empty ``/proc`` and the packages its item does not
    allow covered (``limits["packages"]``: those it allows), confinement (job uid, no
    capabilities, seccomp), descriptors, limits, then the job. Never returns. Any failure before
    the runner's first frame exits with status 70/71 and no frame, which the trusted side counts
    as an infrastructure fault. When it exits, the kernel kills whatever the job left running in
    its namespace."""
    status = 70
    try:
        os.setsid()
        baseline = _address_space()  # read before /proc is covered
        if confinement.job_uid is not None:
            import confine

            confine.mount_job_filesystems(int(limits["tmp_bytes"]), int(limits["tmp_inodes"]),
                                          confinement.job_uid)
            confine.cover_packages(set(limits.get("packages", ())))
            confine.confine_job(confinement.job_uid, confinement.job_program,
                                confinement.bounding)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
    except BaseException as error:  # noqa: BLE001 - report on the server's stderr, then exit
        try:
            os.write(2, f"job set-up failed: {type(error).__name__}: {error}\n".encode())
        finally:
            os._exit(status)
    try:
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        _exit_on(signal.SIGPROF, signal.SIGXCPU)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # RLIMIT_FSIZE shows as OSError(EFBIG)
        os.dup2(job_fd, 0)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.dup2(result_fd, 3)
        os.closerange(4, max(1 << 16, os.sysconf("SC_OPEN_MAX")))  # the status pipe too
        sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stdin = open(os.devnull)
        apply_limits(limits, baseline)
        import runner

        runner.run_job(0, 3)
        status = 0
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
        status = 71
    finally:
        os._exit(status)


# What the kernel reports of the job when the server reaps it: its siginfo and its resource
# usage, written by the kernel into these buffers, copied to the status pipe as they are and
# zeroed: never a Python object, so the next job's process inherits none of it.
_SIGINFO_BYTES, _RUSAGE_BYTES = 128, 144
_P_ALL, _P_PIDFD, _WEXITED, _WALL = 0, 3, 4, 0x40000000
_WAITID = {"x86_64": 247, "aarch64": 95, "arm64": 95}
_PIDFD_SEND_SIGNAL = 424


class _Job:
    """The running job as the server holds it: a pidfd (a descriptor number, the same for every
    job) and the kernel's buffers for its end; in development mode also its PID."""

    def __init__(self):
        import ctypes

        self.pidfd = ctypes.c_int(-1)
        self.pid = 0
        self.siginfo = (ctypes.c_char * _SIGINFO_BYTES)()
        self.rusage = (ctypes.c_char * _RUSAGE_BYTES)()

    def start(self, pid1: bool) -> bool:
        """Fork the job; True in the job's process. Isolated: ``confine.clone_job`` (a new
        PID, mount and IPC namespace; the server is told no PID, only a pidfd)."""
        if not pid1:
            self.pid = os.fork()
            if self.pid:
                self.pidfd.value = os.pidfd_open(self.pid)
            return self.pid == 0
        import confine

        return confine.clone_job(self.pidfd)

    def kill(self) -> None:
        """SIGKILL the job (isolated: PID 1 of its namespace, so everything in it dies)."""
        if self.pidfd.value >= 0:
            _c_library().syscall(_PIDFD_SEND_SIGNAL, self.pidfd, signal.SIGKILL, None, 0)
        if self.pid:  # development mode: what is left of its session too
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def reap(self, status_fd: int, pid1: bool) -> None:
        """Wait for the job's end, copy the kernel's siginfo and resource usage of it to
        ``status_fd`` (read by the trusted side only) and zero them; then kill and reap anything
        else (in isolated mode nothing: the job's namespace died with it)."""
        import ctypes
        import platform

        if self.pidfd.value >= 0:
            _c_library().syscall(_WAITID[platform.machine()], _P_PIDFD, self.pidfd, self.siginfo,
                                 _WEXITED, self.rusage)
            try:
                os.write(status_fd, self.siginfo)
                os.write(status_fd, self.rusage)
            except OSError:
                pass  # the trusted side gave up on the job: nothing to tell
            ctypes.memset(self.siginfo, 0, _SIGINFO_BYTES)
            ctypes.memset(self.rusage, 0, _RUSAGE_BYTES)
            os.close(self.pidfd.value)
            self.pidfd.value = -1
        if pid1:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            while _c_library().waitid(_P_ALL, 0, None, _WEXITED | _WALL) == 0:
                pass  # no siginfo buffer: nothing of the reaped processes enters this process
            return
        self.kill()
        while True:  # development mode: its leftovers, if they are still the server's children
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
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
    Each job is handled by :func:`_serve_job`, whose variables are gone before the next job is
    forked: the server keeps nothing of one job when it forks the next."""
    sock = sock or socket.socket(fileno=control_fd)
    baseline = process_settings()
    _send(sock, {"op": "ready", "uid": os.getuid(), "pid": os.getpid()})
    while True:
        message, fds = _receive(sock)
        if message is None:
            return
        if message.get("op") == "kill" and not fds:
            continue  # it crossed the end of the job it was meant for
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
        if not _serve_job(sock, message["limits"], fds, pid1, confinement):
            return


def _serve_job(sock: socket.socket, limits: dict, fds: list[int], pid1: bool,
               confinement: Confinement) -> bool:
    """One job: fork it, wait for its end or a ``kill`` (then kill it), reap it (its status
    goes to the status pipe, ``fds[3]``), reply ``exit``. False when the control socket closed."""
    job = _Job()
    try:
        started = job.start(pid1)
    except OSError as error:
        started = False
        os.write(2, f"cannot start the job: {error}\n".encode())
    if started:
        sock.close()
        os.close(fds[3])
        child_main(limits, *fds[:3], confinement)
    for fd in fds[:3]:
        os.close(fd)
    poller = select.poll()  # not select.select: it fails for descriptors above 1023
    poller.register(sock.fileno(), select.POLLIN)
    if job.pidfd.value >= 0:
        poller.register(job.pidfd.value, select.POLLIN)
    alive = True
    while job.pidfd.value >= 0 and not any(fd == job.pidfd.value for fd, _ in poller.poll()):
        request, extra = _receive(sock)
        for fd in extra:
            os.close(fd)
        if request is None:
            alive = False
            job.kill()
            break
        if request.get("op") == "kill":
            job.kill()
    job.reap(fds[3], pid1)
    os.close(fds[3])
    if alive:
        _send(sock, {"op": "exit"})
    return alive


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -I -S server.py --control-fd N [--path DIR]... [--pid1
    --seccomp-fd N --server-uid U --job-uid J] [--warm]`` (``--warm``: :func:`runner.warm_up`
    once, before the first job: the trusted side's ``sandbox`` lever)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--path", action="append", default=[])
    parser.add_argument("--pid1", action="store_true")
    parser.add_argument("--seccomp-fd", type=int, default=None)
    parser.add_argument("--server-uid", type=int, default=None)
    parser.add_argument("--job-uid", type=int, default=None)
    parser.add_argument("--warm", action="store_true")
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
    if options.warm:  # before the snapshots too: whatever it binds, every job inherits
        runner.warm_up()
    runner.prepare()  # the runner's namespace snapshots, taken once and shared by every job

    serve(options.control_fd, options.pid1, confinement, sock)


if __name__ == "__main__":
    main()
