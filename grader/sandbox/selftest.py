"""The start-up self-test: proves, through the real sandbox, that isolation holds before any
learner code is graded (fail closed: a non-empty problem list means "do not grade").

It plants canaries outside the sandbox (a world-readable file in the host's /tmp, an environment
variable in this process, set *before* a fresh server is started so that inheritance would show),
then runs a probe submission that tries to reach them, to connect to Redis and PostgreSQL on
127.0.0.1, and reports its uid (and the server's), capabilities, seccomp mode, no-new-privs flag,
visible processes, user-namespace mapping, whether it can execute a program, whether it can change
the server's limits, priority or affinity, and whether its /tmp starts empty and writable. The probe only
returns integers; every judgement is made here.
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
    "seccomp", "no_new_privs", "visible_processes", "uid_map_size", "exec", "server_uid",
    "act_on_server", "tmp_entries", "tmp_writable",
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

def _status(key):
    try:
        for line in open("/proc/self/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1], 16 if key.startswith("Cap") else 10)
    except OSError:
        pass
    return -1

def _environ_has(path, needle):
    try:
        return int(needle.encode() in open(path, "rb").read())
    except OSError:
        return 0

def _uid_map_size():
    try:
        lines = open("/proc/self/uid_map").read().splitlines()
        return sum(int(line.split()[2]) for line in lines if line.strip())
    except (OSError, ValueError, IndexError):
        return -1

def _can_exec():
    try:
        import subprocess
        subprocess.run(["/usr/bin/setpriv", "--version"], capture_output=True, timeout=2)
        return 1
    except Exception:
        return 0

def _server_uid():
    try:
        for line in open("/proc/1/status"):
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1

def _act_on_server():
    """How many of prlimit/setpriority/sched_setaffinity on PID 1 succeed (each a no-op)."""
    import resource
    done = 0
    for attempt in (lambda: resource.prlimit(1, resource.RLIMIT_NOFILE,
                                             resource.prlimit(1, resource.RLIMIT_NOFILE)),
                    lambda: os.setpriority(os.PRIO_PROCESS, 1, os.getpriority(os.PRIO_PROCESS, 1)),
                    lambda: os.sched_setaffinity(1, os.sched_getaffinity(1))):
        try:
            attempt()
            done += 1
        except OSError:
            pass
    return done

def _tmp_writable():
    try:
        with open("/tmp/self-test", "wb") as f:
            f.write(b"x")
        os.unlink("/tmp/self-test")
        return 1
    except OSError:
        return 0

def probe():
    return (
        os.getuid(), os.geteuid(),
        _connect("127.0.0.1", 6379), _connect("127.0.0.1", 5432), _connect("1.1.1.1", 53),
        _readable(CANARY_FILE),
        int(CANARY_NAME in os.environ) | _environ_has("/proc/self/environ", CANARY_NAME),
        _environ_has("/proc/1/environ", CANARY_NAME),
        _readable(PROJECT_FILE), _readable("/etc/shadow"),
        _status("CapEff"), _status("CapBnd"), _status("Seccomp"), _status("NoNewPrivs"),
        len([p for p in os.listdir("/proc") if p.isdigit()]),
        _uid_map_size(), _can_exec(), _server_uid(), _act_on_server(),
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
    if report["visible_processes"] > 3:
        problems.append(f"sandboxed code sees {report['visible_processes']} processes "
                        "(no private PID namespace)")
    if report["exec"]:
        problems.append("sandboxed code can execute programs")
    if report["uid_map_size"] != 2:
        problems.append("sandboxed code is not in a user namespace mapping only its own uid "
                        "and the server's")
    if report["server_uid"] in (report["uid"], 0):
        problems.append("sandboxed code runs as the same uid as the server it was forked from")
    if report["act_on_server"]:
        problems.append("sandboxed code can change the server's limits, priority or affinity")
    if report["tmp_entries"] != 0 or not report["tmp_writable"]:
        problems.append("a job does not start with an empty, writable /tmp")
    return problems
