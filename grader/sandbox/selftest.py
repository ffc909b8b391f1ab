"""The start-up self-test: proves, through the real sandbox, that isolation holds before any
learner code is graded (fail closed: a non-empty problem list means "do not grade").

It plants canaries outside the sandbox (a world-readable file in the host's /tmp, an environment
variable in this process, set *before* a fresh server is started so that inheritance would show),
then runs a probe submission that tries to reach them, to connect to Redis and PostgreSQL on
127.0.0.1, and reports its uid, capabilities, seccomp mode and no-new-privs flag (from system
calls: a job has no ``/proc``), its PID and the processes it can find (itself only: PID 1 of its
own namespace, so the server cannot even be named), whether ``/proc`` is empty, whether it can
execute a program, and whether its /tmp starts empty and writable. The probe only returns
integers; every judgement is made here, with the host's view of the server's user-namespace
mapping and uid.
"""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

from grader.sandbox.api import Call, Limits

CHECKS = (
    "uid", "euid", "network_redis", "network_postgres", "network_outside", "canary_file",
    "canary_env", "canary_proc1_environ", "project_file", "shadow", "cap_eff", "cap_bnd",
    "seccomp", "no_new_privs", "pid", "visible_processes", "proc_entries", "exec",
    "tmp_entries", "tmp_writable",
)

PROBE = '''
import os, socket

def _connect(host, port):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.5)
        s.connect((host, port))
        return 1
    except OSError:
        return 0

def _readable(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return 1
    except OSError:
        return 0

import ctypes
_libc = ctypes.CDLL(None, use_errno=True)

def _capabilities():
    """(effective, bounding) capability masks, from capget and PR_CAPBSET_READ."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capget(header, data) != 0:
        return -1, -1
    bounding = sum(1 << n for n in range(64) if _libc.prctl(23, n, 0, 0, 0) == 1)
    return data[0] | data[3] << 32, bounding

def _processes():
    """PIDs 1..4096 that exist in this PID namespace (signal 0: allowed or EPERM)."""
    found = 0
    for pid in range(1, 4097):
        try:
            os.kill(pid, 0)
            found += 1
        except PermissionError:
            found += 1
        except OSError:
            pass
    return found

def _environ_has(path, needle):
    try:
        return int(needle.encode() in open(path, "rb").read())
    except OSError:
        return 0

def _can_exec():
    try:
        import subprocess
        subprocess.run(["/usr/bin/setpriv", "--version"], capture_output=True, timeout=2)
        return 1
    except Exception:
        return 0

def _tmp_writable():
    try:
        with open("/tmp/self-test", "wb") as f:
            f.write(b"x")
        os.unlink("/tmp/self-test")
        return 1
    except OSError:
        return 0

def probe():
    effective, bounding = _capabilities()
    return (
        os.getuid(), os.geteuid(),
        _connect("127.0.0.1", 6379), _connect("127.0.0.1", 5432), _connect("1.1.1.1", 53),
        _readable(CANARY_FILE),
        int(CANARY_NAME in os.environ) | _environ_has("/proc/self/environ", CANARY_NAME),
        _environ_has("/proc/1/environ", CANARY_NAME),
        _readable(PROJECT_FILE), _readable("/etc/shadow"),
        effective, bounding, _libc.prctl(21, 0, 0, 0, 0), _libc.prctl(39, 0, 0, 0, 0),
        os.getpid(), _processes(), len(os.listdir("/proc")), _can_exec(),
        len(os.listdir("/tmp")), _tmp_writable(),
    )
'''


def self_test(sandbox) -> list[str]:
    """Run the probe through ``sandbox`` and return the problems found (empty list = isolation
    holds). Restarts the sandbox's server so the environment canary is present at its start."""
    problems: list[str] = []
    name = "GRADER_SANDBOX_CANARY_" + secrets.token_hex(4).upper()
    project_file = Path(__file__).resolve().parents[2] / "pyproject.toml"
    directory = tempfile.mkdtemp(prefix="grader-canary-")
    canary_file = Path(directory) / "canary.txt"
    canary_file.write_text(secrets.token_hex(16))
    os.chmod(directory, 0o755)
    os.chmod(canary_file, 0o644)
    os.environ[name] = secrets.token_hex(16)
    try:
        restart = getattr(sandbox, "restart", None)
        if restart is not None:
            restart()
        source = (f"CANARY_FILE = {str(canary_file)!r}\nCANARY_NAME = {name!r}\n"
                  f"PROJECT_FILE = {str(project_file)!r}\n" + PROBE)
        result = sandbox.run(source, [Call(test="self-test", function="probe")],
                             Limits(wall_seconds=10.0))
    finally:
        os.environ.pop(name, None)
        canary_file.unlink()
        os.rmdir(directory)
    if result.status != "ok" or result.calls[0].status != "ok":
        return [f"the probe did not run: {result.status} {result.message} "
                f"{result.calls[0].error if result.calls else ''}".strip()]
    values = result.calls[0].value
    if not isinstance(values, tuple) or len(values) != len(CHECKS):
        return [f"the probe returned {values!r}"]
    report = dict(zip(CHECKS, values))
    if report["uid"] == 0 or report["euid"] == 0:
        problems.append("sandboxed code runs as root")
    for check in ("network_redis", "network_postgres", "network_outside"):
        if report[check]:
            problems.append(f"sandboxed code reached the network ({check})")
    if report["canary_file"]:
        problems.append("sandboxed code read a file outside the sandbox")
    if report["canary_env"] or report["canary_proc1_environ"]:
        problems.append("sandboxed code saw an environment variable of the worker")
    if report["project_file"]:
        problems.append("sandboxed code read the project's files")
    if report["shadow"]:
        problems.append("sandboxed code read /etc/shadow")
    if report["cap_eff"] != 0 or report["cap_bnd"] != 0:
        problems.append(f"sandboxed code holds capabilities (CapEff {report['cap_eff']:#x}, "
                        f"CapBnd {report['cap_bnd']:#x})")
    if report["seccomp"] != 2:
        problems.append("no seccomp filter is loaded")
    if report["no_new_privs"] != 1:
        problems.append("no_new_privs is not set")
    if report["pid"] != 1 or report["visible_processes"] != 1:
        problems.append(f"sandboxed code runs as PID {report['pid']} and finds "
                        f"{report['visible_processes']} processes (no PID namespace of its own)")
    if report["proc_entries"]:
        problems.append("sandboxed code sees /proc (counters of the machine and of other jobs)")
    if report["exec"]:
        problems.append("sandboxed code can execute programs")
    id_map = _server_id_map(sandbox)
    if id_map is not None and id_map != 2:
        problems.append("sandboxed code is not in a user namespace mapping only its own uid "
                        "and the server's")
    if report["uid"] in (getattr(sandbox, "server_uid", None), 0):
        problems.append("sandboxed code runs as the same uid as the server it was forked from")
    if report["tmp_entries"] != 0 or not report["tmp_writable"]:
        problems.append("a job does not start with an empty, writable /tmp")
    return problems


def _server_id_map(sandbox) -> int | None:
    """How many ids the server's user namespace maps (read from the host, where the server's
    ``/proc`` entry is), or None when the sandbox has no isolated server to look at."""
    pid = getattr(sandbox, "server_host_pid", lambda: None)()
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/uid_map") as handle:
            return sum(int(line.split()[2]) for line in handle if line.strip())
    except (OSError, ValueError, IndexError):
        return -1
