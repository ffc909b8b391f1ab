"""The trusted side's view of one running job: the job stream (:class:`Job`, built by
``forkserver.encode_job``), its wall clock (:class:`Deadline`) and its four pipes
(:class:`JobStreams`: job, results, output, and the status of its end), with the
control messages and the ``poll`` that ``ForkServerSandbox._run`` (``forkserver.py``) drives
them with.

Everything read here comes from the sandbox and is untrusted: result frames go to the
:class:`~grader.sandbox.collect.Collector`, output is kept up to the limit and counted, control
messages are checked for shape.
"""
from __future__ import annotations

import json
import os
import select
import socket
import struct
import time
from dataclasses import dataclass

from grader.sandbox import wire
from grader.sandbox.api import Limits
from grader.sandbox.collect import (MAX_RESULT_BYTES, RESULT_TAGS, Collector, Ending,
                                    output_stop_bytes)

KILL_GRACE = 2.0  # seconds the server has to confirm a kill
DRAIN_GRACE = 1.0  # seconds a job's streams may drain after its exit
READ_CHUNK = 1 << 16
#: What the server writes on the status pipe when it reaped the job: the kernel's ``siginfo``
#: of the job's end and its ``struct rusage`` (``server._Job.reap``), as the kernel wrote them.
SIGINFO_BYTES, RUSAGE_BYTES = 128, 144
_SIGINFO = struct.Struct("=iii4xiii")  # si_signo, si_errno, si_code, si_pid, si_uid, si_status
_TIMEVALS = struct.Struct("=qqqq")  # ru_utime, ru_stime (seconds, microseconds)
CLD_EXITED, CLD_KILLED, CLD_DUMPED = 1, 2, 3


def wait_status(siginfo: bytes) -> int | None:
    """The ``waitpid``-style status of a child's end from its ``siginfo`` (None if it is not
    one: the job did not end, or the server wrote nothing)."""
    _signo, _errno, code, _pid, _uid, value = _SIGINFO.unpack_from(siginfo)
    if code == CLD_EXITED:
        return (value & 0xFF) << 8
    if code in (CLD_KILLED, CLD_DUMPED):
        return (value & 0x7F) | (0x80 if code == CLD_DUMPED else 0)
    return None


def cpu_seconds(rusage: bytes) -> float:
    """User plus system CPU seconds of a ``struct rusage``."""
    user_s, user_us, system_s, system_us = _TIMEVALS.unpack_from(rusage)
    return user_s + system_s + (user_us + system_us) / 1e6


class ServerDied(RuntimeError):
    """The pre-forked server vanished, broke protocol or refused the job (restarted)."""


@dataclass(frozen=True)
class Job:
    """A job stream in two parts: ``opening`` (the ``JOB_`` frame and the arguments of the calls
    before the first secret one), written at once, and ``held`` (the arguments from the first
    secret call on), written only when the learner's code is imported and the first ``gate``
    calls have finished (:class:`~grader.sandbox.api.Call` ``secret``)."""

    opening: bytes
    held: bytes = b""
    gate: int = 0


class Deadline:
    """The job's wall clock (the trusted side's own). Each test has ``wall_seconds`` from its
    first call's start (the import: from the job's start), never past ``run_deadline``; once a
    kill was asked for (``kill_sent_at``) the server has ``KILL_GRACE`` seconds to confirm the
    job's exit; once it exited, its streams have ``DRAIN_GRACE`` seconds to drain. Times are
    ``time.monotonic()`` seconds."""

    def __init__(self, wall_seconds: float, run_deadline: float, collector: Collector):
        self.begun = time.monotonic()
        self.wall_seconds, self.run_deadline, self.collector = wall_seconds, run_deadline, collector
        self.kill_sent_at: float | None = None
        self.exit_deadline: float | None = None

    @property
    def exited(self) -> bool:
        return self.exit_deadline is not None

    def on_exit(self) -> None:
        """The server reported the job's exit: its streams may drain for ``DRAIN_GRACE``."""
        self.exit_deadline = time.monotonic() + DRAIN_GRACE

    def limit(self) -> float:
        """When the running test (or the import) reaches its wall-clock limit."""
        return min((self.collector.test_started or self.begun) + self.wall_seconds,
                   self.run_deadline)

    def expired(self, now: float) -> bool:
        """The running job passed its limit and no kill was asked for yet."""
        return not self.exited and self.kill_sent_at is None and now >= self.limit()

    def kill_overdue(self, now: float) -> bool:
        """A kill was asked for and the server did not confirm the exit within ``KILL_GRACE``."""
        return (self.kill_sent_at is not None and not self.exited
                and now > self.kill_sent_at + KILL_GRACE)

    def drained(self, now: float) -> bool:
        return self.exited and now > self.exit_deadline

    def next_wait(self, now: float) -> float:
        """Seconds to wait for an event before the next decision (at least 0)."""
        if self.exited:
            until = self.exit_deadline
        elif self.kill_sent_at is not None:
            until = self.kill_sent_at + KILL_GRACE
        else:
            until = self.limit()
        return max(0.0, until - now)


class JobStreams:
    """The trusted side's ends of one job's four pipes and what went through them: the job
    stream written (its secret part held until the collector saw the import and the calls
    before it), the result frames fed to the collector, the output kept up to
    ``limits.output_bytes`` (``output``; ``output_total`` bytes were printed in all), and the
    status pipe, on which the server writes the kernel's report of the job's end when it reaped
    it (read into ``Ending.exit_status`` and ``Ending.cpu_seconds``)."""

    def __init__(self, job_w: int, result_r: int, output_r: int, job: Job, collector: Collector,
                 limits: Limits, status_r: int = -1):
        self.job_w, self.result_r, self.output_r = job_w, result_r, output_r
        self.status_r, self.status = status_r, b""
        self.pending, self.held, self.gate = memoryview(job.opening), job.held, job.gate
        self.collector, self.limits = collector, limits
        self.reader = wire.FrameReader(RESULT_TAGS, MAX_RESULT_BYTES, collector.frame_limit,
                                       sink=collector.feed)
        self.output = bytearray()
        self.output_total = 0
        #: bytes of ``output`` read before any secret byte was written (None: none was)
        self.visible_output: int | None = None
        self.open_fds = {result_r, output_r, status_r} - {-1}  # still open for reading
        os.set_blocking(job_w, False)

    @classmethod
    def open(cls, control: socket.socket, request: dict, job: Job, collector: Collector,
             limits: Limits) -> "JobStreams":
        """Make the pipes and send the server ``request`` with the job's ends of them; raises
        ``ServerDied`` when the request cannot be sent."""
        job_r, job_w = os.pipe()
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        status_r, status_w = os.pipe()
        try:
            try:
                control.sendmsg([json.dumps(request).encode("ascii")],
                                [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                  _fd_bytes(job_r, result_w, output_w, status_w))])
            except OSError as error:
                for fd in (job_w, result_r, output_r, status_r):
                    os.close(fd)
                raise ServerDied(f"cannot send the job: {error}") from None
        finally:
            for fd in (job_r, result_w, output_w, status_w):
                os.close(fd)
        return cls(job_w, result_r, output_r, job, collector, limits, status_r)

    def on_status(self, ending: Ending) -> None:
        """Read the status pipe; at its end, record the job's wait status and CPU seconds in
        ``ending`` when the server wrote the kernel's report (untrusted: it picks a message)."""
        chunk = os.read(self.status_r, SIGINFO_BYTES + RUSAGE_BYTES + 1)
        self.status += chunk
        if chunk and len(self.status) <= SIGINFO_BYTES + RUSAGE_BYTES:
            return
        self.open_fds.discard(self.status_r)
        if len(self.status) == SIGINFO_BYTES + RUSAGE_BYTES:
            ending.exit_status = wait_status(self.status[:SIGINFO_BYTES])
            ending.cpu_seconds = cpu_seconds(self.status[SIGINFO_BYTES:])

    def writers(self) -> list[int]:
        """``[job_w]`` while job bytes wait to be written (releasing the held part once the
        learner's code is imported and the first ``gate`` calls finished)."""
        collector = self.collector
        if self.held and collector.imported and len(collector.outcomes) >= self.gate:
            self._mark_visible_output()
            self.pending, self.held = memoryview(bytes(self.pending) + self.held), b""
        return [self.job_w] if self.pending and self.job_w >= 0 else []

    def _mark_visible_output(self) -> None:
        """Read the output already in its pipe (the runner flushes the learner's output before
        each result frame; at most the output limit plus one chunk), then mark how much of
        ``output`` came before the secret part of the job: none of it can depend on a hidden
        input, which the learner's process has not received yet."""
        budget = self.limits.output_bytes + READ_CHUNK
        while budget > 0 and self.output_r in self.open_fds:
            readable, _ = poll([self.output_r], [], 0)
            if not readable:
                break
            chunk = os.read(self.output_r, READ_CHUNK)
            if not chunk:
                self.open_fds.discard(self.output_r)
                break
            budget -= len(chunk)
            self.output_total += len(chunk)
            limit = self.limits.output_bytes
            if len(self.output) < limit:
                self.output += chunk[:limit - len(self.output)]
        self.visible_output = len(self.output)

    def visible_text(self) -> bytes:
        """What the learner's code printed before the job's secret part was written (all of
        ``output`` when it never was): free of hidden inputs, so it may be shown."""
        return bytes(self.output if self.visible_output is None
                     else self.output[:self.visible_output])

    def write_some(self) -> None:
        """Write what the pipe takes; close it once everything is written (or the job closed
        its end: the rest is dropped)."""
        try:
            written = os.write(self.job_w, self.pending[:READ_CHUNK * 16])
            self.pending = self.pending[written:]
        except (BrokenPipeError, BlockingIOError) as error:
            if isinstance(error, BrokenPipeError):
                self.pending, self.held = memoryview(b""), b""
        if not self.pending and not self.held:
            os.close(self.job_w)
            self.job_w = -1

    def on_readable(self, fd: int, ending: Ending, killing: bool) -> bool:
        """Read from ``fd`` (results or output); True when the job must be killed: a broken
        or oversized result stream, results out of protocol order, or an output flood (recorded in ``ending`` unless a kill
        was already asked for, ``killing``)."""
        if fd == self.result_r:
            return self._on_results(ending)
        if fd == self.status_r:
            self.on_status(ending)
            return False
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            self.open_fds.discard(fd)
            return False
        self.output_total += len(chunk)
        limit = self.limits.output_bytes
        if len(self.output) < limit:
            self.output += chunk[:limit - len(self.output)]
        if self.output_total > output_stop_bytes(limit) and not killing:
            ending.output_flood = True
            return True
        return False

    def _on_results(self, ending: Ending) -> bool:
        try:
            _frames, end = self.reader.read_from(self.result_r, READ_CHUNK)
        except wire.WireError as error:
            if isinstance(error, wire.FrameTooLarge) and error.tag == b"VALU" \
                    and self.collector.current is not None:
                ending.oversized = error
            else:
                ending.results_too_large = "more than" in str(error)
                self.collector.violation = self.collector.violation or str(error)
            self.open_fds.discard(self.result_r)
            return True
        if self.collector.violation is not None:  # e.g. two processes answering one call
            self.open_fds.discard(self.result_r)
            return True
        if end:
            self.open_fds.discard(self.result_r)
        return False

    def close(self) -> None:
        for fd in (self.job_w, self.result_r, self.output_r, self.status_r):
            if fd >= 0:
                os.close(fd)


def on_control(message: dict, deadline: Deadline) -> None:
    """A control message during a job: ``exit`` (the job's processes are gone and reaped)
    starts the drain; ``drifted`` (the server's own settings changed) raises ``ServerDied``."""
    if message.get("op") == "drifted":
        raise ServerDied(f"the server's own settings drifted ({message.get('settings')}); "
                         "replaced")
    if message.get("op") == "exit":
        deadline.on_exit()


def poll(readers: list[int], writers: list[int], timeout: float) -> tuple[list[int], list[int]]:
    """``select`` for any descriptor number (``select.select`` fails above 1023). A descriptor
    at end of file or in error counts as readable, so the caller's read sees it."""
    poller = select.poll()
    for fd in readers:
        poller.register(fd, select.POLLIN)
    for fd in writers:
        poller.register(fd, select.POLLOUT)
    readable, writable = [], []
    for fd, events in poller.poll(timeout * 1000):
        if fd in readers and events & (select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL):
            readable.append(fd)
        if fd in writers and events & (select.POLLOUT | select.POLLERR | select.POLLHUP):
            writable.append(fd)
    return readable, writable


def _fd_bytes(*fds: int) -> bytes:
    import array

    return array.array("i", fds).tobytes()


def read_control(control: socket.socket) -> dict:
    try:
        data = control.recv(65536)
    except OSError as error:
        raise ServerDied(f"control socket: {error}") from None
    if not data:
        raise ServerDied("the server closed its control socket")
    try:
        message = json.loads(data)
    except ValueError:
        raise ServerDied("unreadable control message") from None
    if not isinstance(message, dict):
        raise ServerDied("unreadable control message")
    return message

