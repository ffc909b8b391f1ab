"""One learner's job must never change what a later learner's job meets (issue 10, parts 1 and 2).

Part 1, the server: every job is forked from the slot's pre-forked server, so anything a job
could change on that process (rlimits, nice value, scheduling policy, CPU affinity, I/O priority,
OOM score, timer slack) would be inherited by every later job. The server is not in a job's PID
namespace (its PID 1 is the job's init, of the server's uid) and jobs run as another uid, so the
kernel refuses all of it; each payload below tries one kind through Python, through raw system
calls, or through /proc, on PID 1 and on the server's uid. The server's settings are read from
the host (the authority here, not the payload's own report) before and after, and a correct
submission must then earn full marks on the same sandbox.

Second line of defence: if the server's settings drift anyway (simulated here by root on the
host, which may change any process), the server refuses the next job and is replaced; the job
runs on a fresh server and is graded normally.

Part 2, files: every writable place of a job (/tmp, which is also its working directory) is a
fresh tmpfs per job, so nothing planted (files, directories it made unreadable, a 1,200-deep
chain of directories, a full /tmp, every inode used) reaches the next job.
"""
from __future__ import annotations

import ctypes
import os
import platform

import pytest

from tests.hostile.payload_support import CORRECT, LIMITS, make_calls, points

IOPRIO_SYSCALLS = {"x86_64": (251, 252), "aarch64": (30, 31)}  # (ioprio_set, ioprio_get)
LIBC = ctypes.CDLL(None, use_errno=True)

# The header every payload shares: ``OTHERS`` are the PIDs the server could have in the job's
# PID namespace (it was PID 1 when the slot's jobs shared the server's; now the job is PID 1 of
# its own and no other process exists there); ``attempt`` counts the calls the kernel accepted
# (it must stay 0).
HEADER = '''
import ctypes, os, resource, signal
libc = ctypes.CDLL(None, use_errno=True)
OTHERS = [pid for pid in range(1, 4097) if pid != os.getpid()]
accepted = 0
def attempt(action):
    global accepted
    try:
        result = action()
    except (OSError, ValueError):
        return
    if isinstance(result, int) and result < 0:   # raw syscall: -1 and errno
        return
    accepted += 1
'''
FOOTER = '''
import numpy as np
def softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True) if accepted == 0 else np.zeros_like(x)
'''

SERVER_ATTACKS = {
    # The reproduction: a zero file-size limit on the server made every later job exit 71.
    "prlimit_fsize": '''
for pid in OTHERS:
    attempt(lambda: resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, 0)))
''',
    "prlimit_every_resource": '''
for name in dir(resource):
    if name.startswith("RLIMIT_"):
        for pid in OTHERS[:64]:
            attempt(lambda: resource.prlimit(pid, getattr(resource, name), (1, 1)))
''',
    "prlimit_raw_syscall": '''
class Rlimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_ulong), ("max", ctypes.c_ulong)]
new = Rlimit(16, 16)
for pid in OTHERS:
    attempt(lambda: libc.prlimit(pid, resource.RLIMIT_NOFILE, ctypes.byref(new), None))
''',
    "setpriority_process": '''
for pid in OTHERS:
    attempt(lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
''',
    "setpriority_group_and_user": '''
os.setpriority(os.PRIO_USER, 0, 19)  # the job's own uid and group: allowed, and only the job's
os.setpriority(os.PRIO_PGRP, 0, 19)
for pid in OTHERS:
    attempt(lambda: os.setpriority(os.PRIO_PGRP, pid, 19))
server_uid = os.getuid() - 256  # the launcher's layout: job uid = server uid + 256
attempt(lambda: os.setpriority(os.PRIO_USER, server_uid, 19))
''',
    "sched_setaffinity": '''
for pid in OTHERS:
    attempt(lambda: os.sched_setaffinity(pid, {0}))
''',
    "sched_setscheduler": '''
for pid in OTHERS:
    attempt(lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)))
    attempt(lambda: os.sched_setscheduler(pid, os.SCHED_BATCH, os.sched_param(0)))
    attempt(lambda: os.sched_setparam(pid, os.sched_param(0)))
''',
    "ioprio_set": f'''
import platform
numbers = {IOPRIO_SYSCALLS!r}.get(platform.machine())
idle = (3 << 13)  # IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)
if numbers:
    for pid in OTHERS:
        attempt(lambda: libc.syscall(numbers[0], 1, pid, idle))      # IOPRIO_WHO_PROCESS
        attempt(lambda: libc.syscall(numbers[0], 2, pid, idle))      # IOPRIO_WHO_PGRP
''',
    "proc_files_of_the_server": '''
for name, value in (("oom_score_adj", "1000"), ("timerslack_ns", "50000000"),
                    ("comm", "owned"), ("coredump_filter", "0")):
    for pid in OTHERS[:64]:
        def write(name=name, value=value, pid=pid):
            with open(f"/proc/{pid}/{name}", "w") as handle:
                handle.write(value)
        attempt(write)
''',
    "signals_to_the_server": '''
for number in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL, signal.SIGXFSZ):
    for pid in OTHERS:
        attempt(lambda: os.kill(pid, number))
try:
    os.kill(-1, signal.SIGSTOP)  # every process it may signal: the job's own only (none here)
except OSError:
    pass
''',
}


def server_settings(host_pid: int) -> dict:
    """The server's inheritable settings, read from the host."""
    settings = {"limits": open(f"/proc/{host_pid}/limits").read(),
                "nice": os.getpriority(os.PRIO_PROCESS, host_pid),
                "scheduler": os.sched_getscheduler(host_pid),
                "affinity": sorted(os.sched_getaffinity(host_pid)),
                "oom_score_adj": open(f"/proc/{host_pid}/oom_score_adj").read(),
                "timerslack": open(f"/proc/{host_pid}/timerslack_ns").read(),
                "stopped": open(f"/proc/{host_pid}/stat").read().split(") ")[1][0] in "Tt"}
    numbers = IOPRIO_SYSCALLS.get(platform.machine())
    if numbers:
        settings["ioprio"] = LIBC.syscall(numbers[1], 1, host_pid)
    return settings


def server_pid(sandbox) -> int:
    sandbox.start()
    return sandbox._started.sandbox_pid


def assert_full_marks(sandbox) -> None:
    calls = make_calls(11)
    result = sandbox.run(CORRECT, calls, LIMITS)
    assert result.status == "ok", (result.status, result.message)
    assert points(result, calls) == 3


@pytest.mark.parametrize("name", sorted(SERVER_ATTACKS))
def test_a_job_cannot_change_the_server(name, hostile_sandbox):
    sandbox = hostile_sandbox
    assert_full_marks(sandbox)
    pid = server_pid(sandbox)
    before = server_settings(pid)
    restarts = sandbox.restarts
    calls = make_calls(3)

    result = sandbox.run(HEADER + SERVER_ATTACKS[name] + FOOTER, calls, LIMITS)

    assert result.status == "ok", (result.status, result.message)
    assert points(result, calls) == 3, f"the kernel accepted part of {name}: {result.stdout}"
    assert server_pid(sandbox) == pid and sandbox.restarts == restarts
    assert server_settings(pid) == before
    assert_full_marks(sandbox)


DRIFTS = {  # done by root on the host (which lacks CAP_SYS_RESOURCE here: rlimits below)
    "nice value": lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 10),
    "CPU affinity": lambda pid: os.sched_setaffinity(pid, {min(os.sched_getaffinity(pid))}),
    "scheduling policy": lambda pid: os.sched_setscheduler(pid, os.SCHED_BATCH,
                                                           os.sched_param(0)),
}


@pytest.mark.parametrize("what", sorted(DRIFTS))
def test_a_server_whose_settings_drifted_is_replaced_before_the_next_job(what, hostile_sandbox):
    """Root on the host stands in for an attack that got through: the server notices before it
    forks, refuses, and a fresh server grades the job in full."""
    sandbox = hostile_sandbox
    pid = server_pid(sandbox)
    restarts = sandbox.restarts
    DRIFTS[what](pid)

    assert_full_marks(sandbox)

    assert sandbox.restarts == restarts + 1
    assert server_pid(sandbox) != pid


@pytest.mark.parametrize("resource_name, value", [("RLIMIT_FSIZE", 0), ("RLIMIT_NOFILE", 48),
                                                  ("RLIMIT_AS", 1 << 40)])
def test_an_rlimit_drift_is_caught_even_without_isolation(resource_name, value):
    """In development mode (no isolation) a job shares the server's uid and CAN lower its
    rlimits (the server is its parent): the server's own check is then the only defence, and
    it must hold: the next job runs on a fresh server, in full."""
    from grader.sandbox import get_sandbox

    attack = (f"import os, resource\nresource.prlimit(os.getppid(), resource.{resource_name}, "
              f"({value}, {value}))\n" + FOOTER.replace("if accepted == 0 else np.zeros_like(x)",
                                                      ""))
    sandbox = get_sandbox("unsafe-dev")
    try:
        sandbox.run(attack, make_calls(2), LIMITS)
        restarts = sandbox.restarts
        assert_full_marks(sandbox)
        assert sandbox.restarts == restarts + 1
    finally:
        sandbox.close()


def test_a_job_whose_set_up_fails_is_an_infrastructure_fault_not_a_zero(hostile_sandbox,
                                                                         monkeypatch):
    """A child that dies before the learner's code starts (here: its /tmp cannot be mounted) is
    run again on a fresh server, then reported as an infrastructure error, never as the
    learner's crash."""
    from grader.sandbox import forkserver

    sandbox = hostile_sandbox
    restarts = sandbox.restarts
    monkeypatch.setattr(forkserver, "JOB_TMP_INODES", "not-a-number")
    result = sandbox.run(CORRECT, make_calls(5), LIMITS)
    assert result.status == "infrastructure_error", (result.status, result.message)
    assert "before it started" in result.message
    assert sandbox.restarts == restarts + 2  # the first failure is retried on a fresh server
    assert all(call.status == "skipped" for call in result.calls)
    monkeypatch.undo()
    assert_full_marks(sandbox)


# -- part 2: files ------------------------------------------------------------------------------

FILE_ATTACKS = {
    # The reproduction: a note for the next learner, /tmp filled, the directory locked.
    "note_fill_and_lock": '''
import os
os.makedirs('/tmp/a/b'); open('/tmp/a/b/note', 'w').write('planted')
for n in range(3):
    try: open(f'/tmp/a/b/f{n}', 'wb').write(b'x' * ((8 << 20) - 4096))
    except OSError: pass
os.chmod('/tmp/a/b', 0o500)
''',
    "deep_directory_chain_through_dir_fd": '''
import os
fd = os.open("/tmp", os.O_RDONLY)
for depth in range(1200):
    try:
        os.mkdir("d", dir_fd=fd)
        new = os.open("d", os.O_RDONLY, dir_fd=fd)
    except OSError:
        break
    os.close(fd)
    fd = new
open(os.open("note", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd), "w").write("planted")
os.chmod("/tmp/d", 0)
''',
    "every_inode_used_and_root_locked": '''
import os
for n in range(100000):
    try:
        os.close(os.open(f"/tmp/n{n}", os.O_CREAT | os.O_WRONLY, 0o000))
    except OSError:
        break
os.chmod("/tmp", 0)
''',
    "special_files_and_working_directory": '''
import os, socket
open("planted-in-cwd", "w").write("planted")
os.mkfifo("/tmp/fifo")
os.symlink("/tmp/loop", "/tmp/loop")
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/sock")
for place in ("/dev/shm/planted", "/var/tmp/planted", "/planted", "/sandbox/planted"):
    try:
        open(place, "w").write("planted")
    except OSError:
        pass
''',
    "a_process_left_writing": '''
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            try:
                open("/tmp/late", "a").write("planted")
            except OSError:
                pass
            time.sleep(0.01)
    os._exit(0)
time.sleep(0.1)
''',
}

PROBE = '''
import os
def softmax(x):
    entries = os.listdir("/tmp") + os.listdir(".")
    planted = [p for p in ("/dev/shm/planted", "/var/tmp/planted", "/planted") if os.path.exists(p)]
    free = 0  # MiB written, in files under the 8 MiB file-size limit
    try:
        for n in range(15):
            with open(f"/tmp/capacity-{n // 5}", "ab") as handle:
                handle.write(b"\\0" * (1 << 20))
                free += 1
    except OSError:
        pass
    for name in os.listdir("/tmp"):
        os.unlink("/tmp/" + name)
    import numpy as np
    return np.array([len(entries), len(planted), free, os.getcwd() == "/tmp"], dtype=float)
'''


@pytest.mark.parametrize("name", sorted(FILE_ATTACKS))
def test_files_of_one_job_never_reach_the_next(name, hostile_sandbox):
    from grader.sandbox import Call

    sandbox = hostile_sandbox
    attack = FILE_ATTACKS[name] + FOOTER.replace("if accepted == 0 else np.zeros_like(x)", "")
    sandbox.run(attack, make_calls(1), LIMITS)

    result = sandbox.run(PROBE, [Call(test="probe", function="softmax", args=(0,))], LIMITS)

    assert result.status == "ok", (result.status, result.message)
    entries, planted, free_mib, in_tmp = result.calls[0].value.tolist()
    assert (entries, planted, free_mib, in_tmp) == (0, 0, 15, 1)
    assert_full_marks(sandbox)


SPINNERS = '''
import os, resource, time
import numpy as np

def softmax(x):
    children = []
    for _ in range(4):
        child = os.fork()
        if child == 0:
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                pass
            os._exit(0)
        children.append(child)
    for child in children:
        os.waitpid(child, 0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return np.array([usage.ru_utime + usage.ru_stime])
'''


def test_a_job_gets_one_core_however_many_processes_it_starts(hostile_sandbox):
    """Red team: 8 spinners per call took both cores for 30 s. Four processes spinning for one
    second of wall time share the slot's one-core quota: about one CPU-second in all (two
    without the quota on this two-core machine)."""
    from grader.sandbox import Call, Limits

    sandbox = hostile_sandbox
    if sandbox.cgroup is None or sandbox.cgroup.cpu_dir is None:
        pytest.fail("the cpu controller is part of this machine's cgroups: the quota must apply")
    throttled = sandbox.cgroup.throttled()
    result = sandbox.run(SPINNERS, [Call("spin", "softmax", (0,))],
                         Limits(wall_seconds=10.0, cpu_seconds=10.0))
    assert result.status == "ok", result.message
    cpu = float(result.calls[0].value[0])
    assert cpu <= 1.3, cpu  # (under load it may get less than its core: no lower bound)
    cpu_dir = sandbox.cgroup.cpu_dir
    quota = ((cpu_dir / "cpu.cfs_quota_us").read_text().split() if sandbox.cgroup.version == 1
             else (cpu_dir / "cpu.max").read_text().split()[:1])
    period = ((cpu_dir / "cpu.cfs_period_us").read_text().split() if sandbox.cgroup.version == 1
              else (cpu_dir / "cpu.max").read_text().split()[1:])
    assert int(quota[0]) == int(period[0]), (quota, period)  # one core per period
    # the kernel throttled the spinners, unless other processes left them less than their core
    assert sandbox.cgroup.throttled() > throttled or cpu < 0.9, cpu
    assert_full_marks(sandbox)


# Part 3, NumPy: the server binds the NumPy 1.x names NumPy 2.0 removed (runner.NUMPY_1_ALIASES)
# before it snapshots the namespaces the runner guards. A job that rebinds or deletes them, at
# import or in a call, changes neither its own later calls nor any later job.
NUMPY_1_ALIAS_ATTACK = '''
import numpy as np
np.NINF = 0.0
del np.float_
np.product = None

def softmax(x):
    assert np.NINF == -np.inf and np.float_ is np.float64  # put back after the import and calls
    np.NINF, np.float_ = 1.0, np.int8
    del np.asfarray
    return np.exp(x - x.max(axis=-1, keepdims=True)) / np.exp(
        x - x.max(axis=-1, keepdims=True)).sum(axis=-1, keepdims=True)
'''

NUMPY_1_SOFTMAX = '''
import numpy as np

def softmax(x):
    assert np.NINF == -np.inf and np.float_ is np.float64 and np.product is np.prod
    x = np.asfarray(x)
    shifted = np.where(np.isfinite(x), x, np.NINF) - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted.astype(np.float_))
    return e / e.sum(axis=-1, keepdims=True)
'''


def test_numpy_1_aliases_work_and_no_job_can_change_them_for_a_later_one(hostile_sandbox):
    calls = make_calls(12)
    result = hostile_sandbox.run(NUMPY_1_SOFTMAX, calls, LIMITS)
    assert result.status == "ok" and points(result, calls) == 3, result
    attack = hostile_sandbox.run(NUMPY_1_ALIAS_ATTACK, calls, LIMITS)
    assert attack.status == "ok" and points(attack, calls) == 3, attack
    again = hostile_sandbox.run(NUMPY_1_SOFTMAX, calls, LIMITS)
    assert again.status == "ok" and points(again, calls) == 3, again
    import numpy as np

    assert "NINF" not in np.__dict__ and "float_" not in np.__dict__  # trusted side untouched
