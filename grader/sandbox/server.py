"""The pre-forked server that runs inside the sandbox and forks one child per job.

Started (by ``launcher.py``) from an empty environment, inside bubblewrap's namespaces as an
unprivileged uid; with ``--seccomp-fd`` it first enters its own user namespace, drops every
capability and loads the seccomp filter (``confine.py``). It imports NumPy and the runner once,
then loops on its control socket (``--control-fd``, an ``AF_UNIX`` ``SOCK_SEQPACKET`` socket):

* ``{"op": "run", "limits": {...}}`` with three descriptors attached (``SCM_RIGHTS``): job pipe
  (read end), result pipe (write end), output pipe (write end). The server forks; the child
  applies the per-job rlimits, starts a new session, maps the descriptors to 0 (job), 1 and 2
  (output) and 3 (results), closes everything else and runs ``runner.run_job``. The server never
  reads the job itself, so no job's inputs stay in its memory for the next job's child to find.
* ``{"op": "kill"}`` kills the running job (and everything it started).

When the child has exited (or was killed) the server kills every other process in the sandbox
(``kill(-1, SIGKILL)``: as PID 1 of its PID namespace it is itself immune to signals sent from
inside), reaps them, empties ``/tmp`` and replies ``{"op": "exit", "status": <wait status>,
"cpu": <seconds>, "retire": false}``. If the job left more files in ``/tmp`` than can be removed
quickly, it replies with ``"retire": true`` and exits instead (the trusted side starts a fresh
server before the next job, outside that job's wall clock). Nothing it says is trusted for a verdict; the trusted side only uses it to
pick a message and to know when the next job may start.

Imports only the standard library, NumPy, ``wire`` and ``runner``.
"""
from __future__ import annotations

import argparse
import array
import json
import os
import resource
import select
import shutil
import signal
import socket
import sys

MAX_CONTROL = 64 * 1024
MAX_TMP_INODES_TO_CLEAN = 2000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4


def _prctl(option: int, value: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
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


def child_main(limits: dict, job_fd: int, result_fd: int, output_fd: int) -> None:
    """In the forked child: descriptors, session, limits, then the job. Never returns."""
    status = 70
    try:
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # RLIMIT_FSIZE shows as OSError(EFBIG)
        os.dup2(job_fd, 0)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.dup2(result_fd, 3)
        os.closerange(4, 1 << 16)
        sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)
        sys.stdin = open(os.devnull)
        apply_limits(limits, _address_space())
        import runner

        runner.run_job(0, 3)
        status = 0
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
        status = 71
    finally:
        os._exit(status)


def _cleanup(pid1: bool, job_pid: int) -> None:
    """Kill everything the job left behind and reap it; empty /tmp (sandbox mode only)."""
    if pid1:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
    else:  # development mode: the job's own session is all we can find
        try:
            os.killpg(job_pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG if not pid1 else 0)
        except ChildProcessError:
            break
        if pid == 0:
            break
    if pid1:
        for name in os.listdir("/tmp"):
            path = os.path.join("/tmp", name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    os.chmod(path, 0o700)
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
            except OSError:
                pass


def _tmp_inodes() -> int:
    """Inodes in use on the private /tmp (a million empty files cost no bytes but seconds to
    delete)."""
    stats = os.statvfs("/tmp")
    return stats.f_files - stats.f_ffree


def serve(control_fd: int, pid1: bool) -> None:
    """Answer control messages until the control socket closes."""
    sock = socket.socket(fileno=control_fd)
    _send(sock, {"op": "ready", "uid": os.getuid(), "pid": os.getpid()})
    while True:
        message, fds = _receive(sock)
        if message is None:
            return
        if message.get("op") != "run" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            _send(sock, {"op": "error", "message": "bad request"})
            continue
        job_fd, result_fd, output_fd = fds
        pid = os.fork()
        if pid == 0:
            sock.close()
            child_main(message["limits"], job_fd, result_fd, output_fd)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        status = None
        while status is None:
            readable, _, _ = select.select([sock, pidfd], [], [])
            if pidfd in readable:
                _pid, status, usage = os.wait4(pid, 0)
                break
            request, extra = _receive(sock)
            for fd in extra:
                os.close(fd)
            if request is None:
                os.kill(pid, signal.SIGKILL)
                _cleanup(pid1, pid)
                return
            if request.get("op") == "kill":
                os.kill(pid, signal.SIGKILL)
        os.close(pidfd)
        retire = pid1 and _tmp_inodes() > MAX_TMP_INODES_TO_CLEAN
        if not retire:
            _cleanup(pid1, pid)
        else:  # too many files to remove quickly: kill, exit, let the kernel drop the tmpfs
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _send(sock, {"op": "exit", "status": status, "cpu": usage.ru_utime + usage.ru_stime,
                     "retire": retire})
        if retire:
            return


def main(argv: list[str] | None = None) -> None:
    """Entry point: ``python -I -S server.py --control-fd N [--path DIR]... [--pid1]``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--path", action="append", default=[])
    parser.add_argument("--pid1", action="store_true")
    parser.add_argument("--seccomp-fd", type=int, default=None)
    options = parser.parse_args(argv)
    if options.pid1 and os.getpid() != 1:
        raise SystemExit("--pid1 given but this process is not PID 1 of its namespace")
    for path in reversed(options.path):
        sys.path.insert(0, path)
    if options.seccomp_fd is not None:
        import confine

        confine.confine(options.seccomp_fd)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as PID 1, default-action signals are ignored
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    _prctl(PR_SET_DUMPABLE, 0)  # no /proc/1/mem or /proc/1/environ for the jobs
    import numpy  # noqa: F401 - the point of pre-forking: imported once, shared by every job
    import numpy.lib.format  # noqa: F401
    import traceback  # noqa: F401
    import linecache  # noqa: F401
    import runner  # noqa: F401
    import wire  # noqa: F401

    serve(options.control_fd, options.pid1)


if __name__ == "__main__":
    main()
