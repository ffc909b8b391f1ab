"""A memory + pids control group per worker slot (cgroup v1 or v2), so the limits hold across every
process a job starts (rlimits alone do not: five 700 MiB processes took 3.3 GiB with RLIMIT_AS,
see docs/references.md, "Sandbox").

Layout: ``<mount>/<base>/slot-<n>`` (v1: one directory per controller, ``memory`` and ``pids``;
v2: one directory in the unified hierarchy with both controllers enabled). ``base`` defaults to
``grader-sandbox`` and is kept apart from the cgroup the worker itself runs in.
"""
from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
log = logging.getLogger(__name__)
UNLIMITED_V1 = "-1"


class CgroupUnavailable(RuntimeError):
    """No writable memory + pids cgroup hierarchy (not root, or controllers missing)."""


#: CPU a slot may use at once, in cores (the cpu controller's quota): a job that starts many
#: spinning processes gets one core's worth, however many it starts, and no other slot's share.
SLOT_CPU_CORES = 1.0
CPU_PERIOD_US = 100_000


class SlotCgroup:
    """The cgroup(s) of one worker slot. ``procs_files`` are what a process writes its pid into to
    join; ``set_limits`` and ``oom_kills`` are called by the trusted side around each job. Memory
    and pids are required; the cpu controller's quota (:data:`SLOT_CPU_CORES`) is applied when
    the controller is available (``cpu_dir`` None otherwise, with a warning)."""

    def __init__(self, slot: int, base: str = "grader-sandbox", root: Path = ROOT):
        self.version = _detect_version(root)
        name = f"slot-{slot}"
        self.cpu_dir = None
        if self.version == 1:
            self.memory_dir = root / "memory" / base / name
            self.pids_dir = root / "pids" / base / name
            self.dirs = [self.memory_dir, self.pids_dir]
            if os.access(root / "cpu" / "cpu.cfs_quota_us", os.W_OK):
                self.cpu_dir = root / "cpu" / base / name
                self.dirs.append(self.cpu_dir)
        else:
            self.memory_dir = self.pids_dir = root / base / name
            self.dirs = [self.memory_dir]
            _enable_v2_controllers(root, root / base)
            if _enable_v2_cpu(root, root / base):
                self.cpu_dir = self.memory_dir
        for directory in self.dirs:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise CgroupUnavailable(f"cannot create {directory}: {error}") from None
        self.kill_all()
        self._memory_limit = None
        self._pids_limit = None
        self._set_cpu_quota(SLOT_CPU_CORES)

    def _set_cpu_quota(self, cores: float) -> None:
        if self.cpu_dir is None:
            log.warning("no cpu controller: a sandbox job may use every core while it runs")
            return
        quota = int(cores * CPU_PERIOD_US)
        try:
            if self.version == 1:
                (self.cpu_dir / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                (self.cpu_dir / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (self.cpu_dir / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
        except OSError as error:
            log.warning("cannot set the slot's cpu quota (%s): a job may use every core", error)
            self.cpu_dir = None

    def throttled(self) -> int:
        """How many cpu periods the slot was throttled in so far (0 without a cpu controller)."""
        if self.cpu_dir is None:
            return 0
        try:
            text = (self.cpu_dir / "cpu.stat").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "nr_throttled":
                return int(value)
        return 0

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid into to join the slot."""
        return [str(directory / "cgroup.procs") for directory in self.dirs]

    def set_limits(self, memory_bytes: int, pids: int) -> None:
        """Cap the slot's total memory (bytes, swap included where the kernel accounts it) and
        number of tasks. Raises ``OSError`` if the kernel refuses."""
        if memory_bytes != self._memory_limit:
            if self.version == 1:
                memsw = self.memory_dir / "memory.memsw.limit_in_bytes"
                limit = self.memory_dir / "memory.limit_in_bytes"
                if memsw.exists():  # memsw must stay >= limit: widen first, then set both
                    memsw.write_text(UNLIMITED_V1)
                    limit.write_text(str(memory_bytes))
                    memsw.write_text(str(memory_bytes))
                else:
                    limit.write_text(str(memory_bytes))
            else:
                (self.memory_dir / "memory.max").write_text(str(memory_bytes))
                swap = self.memory_dir / "memory.swap.max"
                if swap.exists():
                    swap.write_text("0")
            self._memory_limit = memory_bytes
        if pids != self._pids_limit:
            (self.pids_dir / "pids.max").write_text(str(pids))
            self._pids_limit = pids

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer has killed in this slot so far."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            text = (self.memory_dir / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def reset_peak_memory(self) -> None:
        """Start a new peak-memory measurement (cgroup v1 only; a no-op elsewhere)."""
        if self.version == 1:
            (self.memory_dir / "memory.max_usage_in_bytes").write_text("0")

    def peak_memory(self) -> int | None:
        """Highest memory use of the slot since the last reset, in bytes (``None`` if unknown)."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.memory_dir / name).read_text())
        except (OSError, ValueError):
            return None

    def memory_limit(self) -> int | None:
        """The slot's current memory limit in bytes."""
        name = "memory.limit_in_bytes" if self.version == 1 else "memory.max"
        try:
            return int((self.memory_dir / name).read_text())
        except (OSError, ValueError):
            return None

    def pids(self) -> list[int]:
        """Every process currently in the slot."""
        found: set[int] = set()
        for path in self.procs_files:
            try:
                found.update(int(line) for line in Path(path).read_text().split())
            except OSError:
                pass
        return sorted(found)

    def kill_all(self, timeout: float = 2.0) -> bool:
        """SIGKILL every process in the slot and wait until it is empty. Returns ``True`` if empty."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and delete the slot's directories (best effort)."""
        self.kill_all()
        for directory in self.dirs:
            try:
                directory.rmdir()
            except OSError:
                pass


def _detect_version(root: Path) -> int:
    if (root / "memory" / "memory.limit_in_bytes").exists() and (root / "pids" / "cgroup.procs").exists():
        if os.access(root / "memory", os.W_OK) and os.access(root / "pids", os.W_OK):
            return 1
    controllers = root / "cgroup.controllers"
    if controllers.exists():
        available = controllers.read_text().split()
        if {"memory", "pids"} <= set(available) and os.access(root, os.W_OK):
            return 2
    raise CgroupUnavailable("no writable memory + pids cgroup (v1 or v2) under /sys/fs/cgroup")


def _enable_v2_cpu(root: Path, base: Path) -> bool:
    """Enable the v2 cpu controller for the slots, when the kernel offers it."""
    try:
        if "cpu" not in (root / "cgroup.controllers").read_text().split():
            return False
        for directory in (root, base):
            (directory / "cgroup.subtree_control").write_text("+cpu")
        return True
    except OSError:
        return False


def _enable_v2_controllers(root: Path, base: Path) -> None:
    try:
        base.mkdir(exist_ok=True)
        for directory in (root, base):
            (directory / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError as error:
        raise CgroupUnavailable(f"cannot enable memory and pids controllers: {error}") from None
