"""CPU seconds spent by each process role of a running :class:`benchmarks.stack.Stack`, read from
Linux ``/proc`` (user + system time), so that figures do not depend on how busy the machine is.

Roles: ``api (gunicorn)``, ``worker (celery)``, ``sandbox`` (the bubblewrap servers and the jobs
they fork), ``redis``, ``postgresql`` (the backends connected to the stack's own database), and the
load generator (this process, reported apart from the service's total).

How each is counted:

* The stack's own process trees (gunicorn, Celery, Redis) by conservation: for every living
  process, its own time plus the time of the children it has reaped (``/proc/<pid>/stat`` fields
  14-17). A child that exits inside a tree moves its time into its parent's reaped time, so the
  sum over a tree's living processes only grows, and the difference between two snapshots is the
  tree's CPU in between, even for job processes that lived a few milliseconds. A process whose
  command line names bubblewrap or the sandbox server starts a ``sandbox`` subtree inside the
  worker's tree.
* PostgreSQL backends are children of the machine's postmaster (shared with other users), so they
  are sampled every ``every`` seconds; a backend's time is its last sample minus its first (zero
  for a backend born after the start). A connection closed between two samples loses at most one
  interval of its time.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
SANDBOX_MARKS = (b"bwrap", b"server.py --control-fd")
SERVICE_ROLES = ("api (gunicorn)", "worker (celery)", "sandbox", "postgresql", "redis")
LOAD = "load generator (this process)"


def _stat(pid: int) -> tuple[float, float] | None:
    """(own CPU seconds, CPU seconds of reaped children) of ``pid``; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return (utime + stime) / TICKS, (cutime + cstime) / TICKS


def children(pid: int) -> list[int]:
    """Direct child pids of ``pid`` (Linux ``/proc``)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""


def tree_seconds(root: int, role: str, totals: dict[str, float]) -> None:
    """Add to ``totals`` the own + reaped CPU seconds of ``root`` and its living descendants, by
    role (``role``, or ``sandbox`` below a sandbox process)."""
    stack = [(root, role)]
    while stack:
        pid, current = stack.pop()
        if current != "sandbox" and any(mark in _cmdline(pid) for mark in SANDBOX_MARKS):
            current = "sandbox"
        stat = _stat(pid)
        if stat is None:
            continue
        totals[current] = totals.get(current, 0.0) + stat[0] + stat[1]
        stack += [(child, current) for child in children(pid)]


def database_backends(database: str) -> dict[int, float]:
    """Own CPU seconds of every PostgreSQL backend whose process title names ``database``."""
    mark = f" {database} ".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        cmdline = _cmdline(int(entry.name))
        if cmdline.startswith(b"postgres: ") and mark in cmdline:
            stat = _stat(int(entry.name))
            if stat is not None:
                found[int(entry.name)] = stat[0]
    return found


class CpuMeter:
    """CPU seconds per role of ``stack`` between :meth:`start` and :meth:`stop`.

    ``roles`` maps a stack process name (``stack.procs``) to its role; PostgreSQL is sampled every
    ``every`` seconds on a thread of its own."""

    ROLES = {"api": "api (gunicorn)", "worker": "worker (celery)", "worker1": "worker (celery)",
             "redis": "redis"}

    def __init__(self, stack, every: float = 0.1):
        self.stack = stack
        self.every = every
        self.database = stack.database_url.rsplit("/", 1)[1].split("?")[0]
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start: dict[str, float] = {}

    def snapshot(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for name, proc in list(self.stack.procs.items()):
            role = self.ROLES.get(name)
            if role is not None and proc.poll() is None:
                tree_seconds(proc.pid, role, totals)
        own = _stat(os.getpid())
        totals[LOAD] = own[0] + own[1] if own else 0.0
        return totals

    def _sample(self, first: bool = False) -> None:
        for pid, seconds in database_backends(self.database).items():
            if pid not in self._first:
                self._first[pid] = seconds if first else 0.0
            self._last[pid] = seconds

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def start(self) -> None:
        self._sample(first=True)
        self._start = self.snapshot()
        self._thread = threading.Thread(target=self._loop, name="cpu-meter", daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, float]:
        """CPU seconds per role since :meth:`start` (roles that used none are left out)."""
        end = self.snapshot()
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        spent = {role: end.get(role, 0.0) - self._start.get(role, 0.0) for role in end}
        spent["postgresql"] = sum(self._last[pid] - self._first[pid] for pid in self._last)
        return {role: seconds for role, seconds in spent.items() if seconds > 0}


def measure(stack, work) -> tuple[object, dict[str, float]]:
    """Run ``work()`` under a :class:`CpuMeter`; returns (its result, CPU seconds per role)."""
    meter = CpuMeter(stack)
    meter.start()
    try:
        result = work()
    finally:
        spent = meter.stop()
    return result, spent


def service_total(spent: dict[str, float]) -> float:
    """CPU seconds of the service's own processes (every role but the load generator)."""
    return sum(seconds for role, seconds in spent.items() if role != LOAD)


def wait_idle(stack, seconds: float = 0.3, timeout: float = 30.0) -> None:
    """Until the stack's processes used less than 5% of a core for ``seconds`` (the previous
    measurement's last jobs have finished), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    meter = CpuMeter(stack)
    while time.monotonic() < deadline:
        before = service_total(meter.snapshot())
        time.sleep(seconds)
        if service_total(meter.snapshot()) - before < 0.05 * seconds:
            return
