"""The trusted side of the pre-forked sandbox: a warm server per worker slot, one job at a time.

``ForkServerSandbox.run`` hands the server three fresh pipes (job, results, output) over the
control socket, streams the job in, reads results and output with its own wall clock, and turns
what it saw into a :class:`RunResult` (``collect.py``). It enforces the limits it can observe
itself: wall time (then asks the server to kill the job; if the server does not confirm within
``jobio.KILL_GRACE`` seconds, the whole sandbox is killed and replaced, the run still ending in the
learner's limit), bytes printed, bytes of results, and the slot cgroup's OOM counter.

What is not the learner's doing is never scored: a server that died between jobs, one whose own
settings drifted (it refuses the job), or a job child that ended before it sent its first frame
(``LIVE``, sent before any of the learner's code runs) make the job run again on a fresh server;
a second such failure is an ``infrastructure_error``.

Thread-safe: jobs on one instance are serialised by a lock; use one instance per worker process.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from typing import Sequence

import numpy as np

from grader import levers
from grader.safetext import clean_text
from grader.sandbox import packages, wire
from grader.sandbox.api import (Call, CallOutcome, Limits, RunResult, SandboxUnavailable,
                                StoppedTest)
from grader.sandbox.collect import Collector, Ending, cpu_budget, format_bytes
from grader.sandbox.jobio import (Deadline, Job, JobStreams, ServerDied, on_control, poll,
                                  read_control)
from grader.sandbox.launcher import SANDBOX_EXTRA

log = logging.getLogger(__name__)

START_TIMEOUT = 15.0
SERVER_MEMORY_ALLOWANCE = 192 << 20  # the pre-imported interpreter itself, on top of the job's
SERVER_PROCESSES = 3  # sh/bwrap on the host side of the cgroup, the server, the job's child
JOB_TMP_INODES = 4096  # files and directories a job may create in its fresh /tmp
MIN_SEGMENT_SECONDS = 0.25  # a fresh process after a stopped test needs at least this much time
#: The per-test limit (wall and CPU seconds) of the tests run after ``max_stopped_tests``
#: stopped ones (:func:`later_limits`).
LATER_SECONDS = 1.0
MAX_JOB_BYTES = 256 << 20  # runner.MAX_JOB_BYTES


class JobNotStarted(RuntimeError):
    """The job's child ended before its first frame: a set-up fault, never the learner's."""


class ForkServerSandbox:
    """A :class:`~grader.sandbox.api.Sandbox` backed by one pre-forked server.

    ``launcher`` is a ``BwrapLauncher`` (isolated) or ``DevLauncher``; ``cgroup`` the slot's
    ``SlotCgroup`` or ``None``; ``on_close`` releases the slot."""

    def __init__(self, launcher, cgroup=None, on_close=None):
        import threading

        self.launcher = launcher
        self.cgroup = cgroup
        self.isolated = launcher.isolated
        self._on_close = on_close
        self._lock = threading.Lock()
        self._started = None
        self._owner_pid = os.getpid()
        self._closed = False
        self.restarts = 0

    # -- server lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the server now (normally done lazily by ``run``). Raises ``SandboxUnavailable``."""
        with self._lock:
            self._ensure_server()

    def _ensure_server(self) -> None:
        if self._started is not None and self._started.process.poll() is None:
            return
        if self._started is not None:
            self._stop_server()
            self.restarts += 1
        if hasattr(self.launcher, "warm"):  # the sandbox lever, read when a server starts
            self.launcher.warm = levers.enabled("sandbox")
        try:
            started = self.launcher.start()
        except (OSError, RuntimeError) as error:
            raise SandboxUnavailable(f"cannot start the sandbox server: {error}") from error
        started.control.settimeout(START_TIMEOUT)
        message = _start_message(started.control)
        if message and message.get("op") == "map" and self.isolated and started.sandbox_pid:
            try:
                self.launcher.map_ids(started.sandbox_pid)
                started.control.send(b'{"op": "mapped"}')
                message = _start_message(started.control)
            except OSError as error:
                message = {"op": "error", "message": f"cannot map the user namespace: {error}"}
        started.control.settimeout(None)
        if not message or message.get("op") != "ready":
            self._started = started
            stderr = self._stop_server()
            raise SandboxUnavailable(f"the sandbox server did not start: {stderr or 'no reply'}")
        self.server_uid = message.get("uid")
        self._started = started

    def _stop_server(self) -> str:
        """Kill the server and everything in its namespace; returns what it wrote to stderr."""
        started, self._started = self._started, None
        if started is None:
            return ""
        started.control.close()
        # Kill the sandbox's PID 1 first (the kernel then kills everything in its namespace) while
        # bwrap, its parent, is alive to reap it; only then bwrap itself. Killing bwrap first
        # would leave the server to be reaped by the host's init.
        for pid in (started.sandbox_pid, started.process.pid):
            if not pid:
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                started.process.wait(timeout=2)
                break
            except subprocess.TimeoutExpired:
                continue
        stderr = ""
        if started.errors is not None:
            try:
                started.errors.seek(0)
                stderr = clean_text(started.errors.read().decode("utf-8", "replace")[-2000:])
            except (OSError, ValueError):
                pass
            started.errors.close()
        if self.cgroup is not None:
            self.cgroup.kill_all()
        return stderr.strip()

    def server_host_pid(self) -> int | None:
        """The host PID of the isolated server (PID 1 of the sandbox), for checks made from the
        host (the self-test reads its user-namespace mapping); None in development mode or when
        no server runs."""
        started = self._started
        return started.sandbox_pid if self.isolated and started is not None else None

    def restart(self) -> None:
        """Replace the server with a fresh one (used by the self-test, and after faults)."""
        with self._lock:
            self._stop_server()
            self._ensure_server()

    def close(self) -> None:
        """Stop the server and release the slot (idempotent); ``run`` refuses afterwards."""
        with self._lock:
            self._closed = True
            self._stop_server()
            if self.cgroup is not None:
                self.cgroup.remove()
                self.cgroup = None
            if self._on_close is not None:
                self._on_close()
                self._on_close = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # -- one job ---------------------------------------------------------------------------------

    def run(self, source: str, calls: Sequence[Call], limits: Limits = Limits()) -> RunResult:
        """Import ``source`` in the sandbox and make ``calls``. Never raises for learner faults;
        raises ``SandboxUnavailable`` only if the server cannot be (re)started at all.

        Each test (consecutive calls with the same ``Call.test``) has its own wall-clock limit.
        A test that stops the job's process (time or memory limit, a crash, an oversized return)
        is recorded in ``RunResult.stopped_tests`` and the tests after it run in a fresh process,
        After ``limits.max_stopped_tests`` stopped tests (at least one), each later process runs
        under :func:`later_limits`, so a hang costs the tests it hangs on and the run still ends
        within ``limits.run_wall_seconds``."""
        if os.getpid() != self._owner_pid:
            raise SandboxUnavailable("this sandbox was created in another process (before a fork); "
                                     "create one per worker process, e.g. in worker_process_init")
        if self._closed:
            raise SandboxUnavailable("this sandbox was closed (its slot may belong to another now)")
        calls = list(calls)
        allowed = packages.resolve(limits.imports)
        imports = self._imports(allowed)
        job = encode_job(source, calls, limits.cpu_seconds, imports)  # unencodable: refused
        started = time.monotonic()
        run_deadline = started + limits.run_wall_seconds
        outcomes: list[CallOutcome] = []
        stopped: list[StoppedTest] = []
        stdout: list[str] = []
        visible_stdout: list[str] = []
        final: RunResult | None = None  # the last process's result, when it ran to its end
        gave_up = ""
        applied = limits  # the limits of the current process (tighter after stops)
        later_seconds = None  # the tighter limit, once a process ran under it
        with self._lock:
            self._provide(allowed)
            while True:
                segment = calls[len(outcomes):]
                if applied is not limits:
                    later_seconds = applied.wall_seconds
                result = self._run_segment(source, segment, applied, run_deadline, imports,
                                           job if applied is limits and not outcomes else None)
                stdout.append(result.stdout)
                visible_stdout.append(result.visible_stdout)  # before its first hidden input
                if result.status == "infrastructure_error":
                    return RunResult(status="infrastructure_error", message=result.message,
                                     calls=[CallOutcome(status="skipped", error="not run: "
                                                        "grading infrastructure problem")
                                            for _ in calls],
                                     seconds=time.monotonic() - started)
                stop = _stopped_call(result)
                if stop is None:
                    outcomes += result.calls
                    final, gave_up = result, result.gave_up
                    break
                stopped.append(StoppedTest(segment[stop].test, _stop_kind(result),
                                           result.message, optional=segment[stop].optional,
                                           limit=result.limit,
                                           seconds=(applied.cpu_seconds if result.limit == "cpu"
                                                    else applied.wall_seconds)))
                outcomes += _outcomes_to_stop(segment, stop, result)
                counted = sum(1 for stop_ in stopped if not stop_.optional)
                if counted >= max(1, limits.max_stopped_tests):
                    applied = later_limits(limits)
                if time.monotonic() >= run_deadline - MIN_SEGMENT_SECONDS:
                    gave_up = _total_time_reached(limits)
                if len(outcomes) == len(calls) or gave_up:
                    outcomes += [CallOutcome(status="skipped", error=f"not run: {gave_up}")
                                 for _ in range(len(outcomes), len(calls))]
                    break
        summary = RunResult("ok") if final is None else final  # whose status and message
        counted = [stop for stop in stopped if not stop.optional]
        if counted and summary.status in ("ok", "timeout", "memory_limit", "crashed"):
            first = counted[0]
            summary = RunResult(_run_status(first), message=first.message,
                                stopped_test=first.test, limit=first.limit)
        return RunResult(status=summary.status, calls=outcomes, message=summary.message,
                         stdout="".join(stdout), seconds=time.monotonic() - started,
                         stopped_tests=stopped, gave_up=gave_up,
                         later_seconds=later_seconds,
                         visible_stdout="".join(visible_stdout),
                         stopped_test=summary.stopped_test, limit=summary.limit,
                         line=summary.line, broken_stream=summary.broken_stream)

    def _imports(self, allowed: tuple) -> dict:
        """What a job needs to import the packages ``allowed`` (``packages.resolve``): the
        folders to keep (``packages``, isolated mode: their binds under ``/sandbox/extra``), the
        paths to add to ``sys.path`` and the top-level modules its import rule allows."""
        if self.isolated:
            paths = [f"{SANDBOX_EXTRA}/{package.name}" for package in allowed]
        else:  # development mode: the host's own folders
            paths = list(dict.fromkeys(str(entry.parent) for package in allowed
                                       for entry in package.entries))
        return {"packages": [package.name for package in allowed], "paths": paths,
                "modules": list(packages.allowed_modules(allowed))}

    def _provide(self, allowed: tuple) -> None:
        """Make sure the server binds the packages ``allowed``: if it does not, the launcher
        binds them (with those bound before) and the next job starts a fresh server."""
        provides = getattr(self.launcher, "provides", None)
        if provides is None or provides(allowed):
            return
        self.launcher.add_packages(allowed)
        self._stop_server()

    def _run_segment(self, source: str, calls: list[Call], limits: Limits,
                     run_deadline: float, imports: dict, job: bytes | None = None) -> RunResult:
        """One sandbox process for ``calls`` (retried once on a fresh server when the job did
        not start, then an infrastructure error). ``imports``: :meth:`_imports`; ``job``:
        ``calls`` already encoded."""
        if job is None:
            job = encode_job(source, calls, limits.cpu_seconds, imports)
        for attempt in (1, 2):
            self._ensure_server()
            oom_before = 0
            if self.cgroup is not None:
                self.cgroup.set_limits(limits.memory_bytes + SERVER_MEMORY_ALLOWANCE,
                                       limits.max_processes + SERVER_PROCESSES)
                oom_before = self.cgroup.oom_kills()
            collector = Collector(calls, limits)
            try:
                return self._run(job, collector, limits, oom_before, run_deadline,
                                 imports["packages"])
            except (ServerDied, JobNotStarted) as error:
                stderr = self._stop_server()
                self.restarts += 1
                ending = Ending(oom_killed=self._oom_since(oom_before))
                if stderr:
                    error = f"{error}; server: {stderr[-500:]}"
                if not collector.live and attempt == 1:
                    log.warning("the job did not start (%s); running it again on a fresh "
                                "sandbox server", error)
                    continue  # not the learner's doing: a fresh server runs the job
                if collector.live and ending.oom_killed:
                    return collector.result(ending, "")
                log.warning("sandbox failure: %s", error)
                ending.infrastructure = f"sandbox server failed: {error}"
                return collector.result(ending, "")
        raise AssertionError("unreachable")

    def _oom_since(self, before: int) -> bool:
        return self.cgroup is not None and self.cgroup.oom_kills() > before

    def _run(self, job: Job, collector: Collector, limits: Limits, oom_before: int,
             run_deadline: float, allowed_packages: list[str]) -> RunResult:
        """One job on the running server: hand it the pipes, then poll the control socket and
        the job's streams until the job exited and its streams drained (or ``jobio.DRAIN_GRACE``
        passed), asking the server to kill the job at the wall-clock limit, on an output flood
        or a broken result stream. Raises ``ServerDied`` and ``JobNotStarted``."""
        control = self._started.control
        streams = JobStreams.open(control, self._job_request(limits, collector.calls,
                                                             allowed_packages), job,
                                   collector, limits)
        ending = Ending()
        deadline = Deadline(limits.wall_seconds, run_deadline, collector)
        unresponsive = False
        try:
            while True:
                now = time.monotonic()
                if deadline.exited and (not streams.open_fds or deadline.drained(now)):
                    break
                if deadline.expired(now):
                    ending.wall_timeout = True
                    deadline.kill_sent_at = self._request_kill(control)
                if deadline.kill_overdue(now):
                    # The job hit a limit and the server could not clean up in time (e.g. a
                    # million files in /tmp): the limit is the learner's, the server is replaced.
                    unresponsive = True
                    break
                readers = list(streams.open_fds) + ([] if deadline.exited else [control.fileno()])
                readable, writable = poll(readers, streams.writers(), deadline.next_wait(now))
                if writable:
                    streams.write_some()
                for fd in readable:
                    if fd == control.fileno():
                        on_control(read_control(control), deadline)
                    elif (streams.on_readable(fd, ending, deadline.kill_sent_at is not None)
                          and deadline.kill_sent_at is None):
                        deadline.kill_sent_at = self._request_kill(control)
        finally:
            streams.close()
        return self._conclude(collector, streams, ending, unresponsive, limits, oom_before,
                              run_deadline)

    def _job_request(self, limits: Limits, calls: Sequence[Call],
                     allowed_packages: list[str]) -> dict:
        """The ``run`` control message: the job's limits and the packages it may import."""
        # RLIMIT_NPROC counts the job uid's processes; in development mode the server shares it.
        if self.isolated:
            nproc = limits.max_processes if self.cgroup is not None else 1
        else:
            nproc = limits.max_processes + 1
        return {"op": "run", "limits": {
            "memory_bytes": limits.memory_bytes, "cpu_seconds": cpu_budget(limits, calls),
            "file_bytes": limits.file_bytes, "nproc": nproc, "tmp_bytes": limits.tmp_bytes,
            "tmp_inodes": JOB_TMP_INODES, "packages": allowed_packages}}

    def _conclude(self, collector: Collector, streams: "JobStreams", ending: Ending,
                  unresponsive: bool, limits: Limits, oom_before: int,
                  run_deadline: float) -> RunResult:
        """The job's RunResult from what was seen; replaces the server when the job outlived its
        exit or the server did not confirm a kill. Raises ``JobNotStarted``."""
        if not collector.live and ending.wall_timeout and time.monotonic() >= run_deadline:
            why = _total_time_reached(limits)
            return RunResult(status="timeout", message=why, gave_up=why, limit="wall", calls=[
                CallOutcome(status="skipped", error=f"not run: {why}") for _ in collector.calls])
        if not collector.live:
            raise JobNotStarted("the job's process ended before it started "
                                f"({'wall clock' if ending.wall_timeout else 'no first frame'})")
        if streams.open_fds and not unresponsive:
            ending.infrastructure = "job processes outlived the job"
        ending.oom_killed = self._oom_since(oom_before)
        # what the learner's code printed: valid Unicode, control characters shown as escapes
        stdout = clean_text(streams.output.decode("utf-8", "replace"))
        if streams.output_total > limits.output_bytes:
            stdout += f"\n[output trimmed: more than {format_bytes(limits.output_bytes)} printed]"
        result = collector.result(ending, stdout)
        if result.status != "infrastructure_error":
            visible = streams.visible_text()
            result.visible_stdout = clean_text(visible.decode("utf-8", "replace"))
            if streams.visible_output is None and streams.output_total > limits.output_bytes:
                result.visible_stdout += (f"\n[output trimmed: more than "
                                          f"{format_bytes(limits.output_bytes)} printed]")
        if collector.violation is not None:
            log.info("a job broke the result protocol: %s", collector.violation[:300])
        if streams.open_fds or unresponsive:
            log.warning("sandbox server replaced after a job (%s)",
                        "unresponsive after kill" if unresponsive else "job outlived its exit")
            self._stop_server()
            self.restarts += 1
        return result

    def _request_kill(self, control: socket.socket) -> float:
        try:
            control.send(b'{"op": "kill"}')
        except OSError as error:
            raise ServerDied(f"cannot ask the server to kill the job: {error}") from None
        return time.monotonic()


#: The ``ARGS`` frames of the :data:`ENCODED_KEPT` calls used last, by the call object's
#: identity (the call is held with its frame, so its id is not reused while it is here): with
#: the lever ``calls`` a grading of a kept seed sends the very Call objects of the last one
#: (:func:`grader.problems.scoring._calls`), whose arguments are read-only arrays, so their
#: frames are the same bytes.
ENCODED_KEPT = 16384  # 17 built-ins x 32 kept seeds: ~6,400 calls, ~8 MB of frames
_encoded: "OrderedDict[int, tuple[Call, bytes]]" = OrderedDict()
_encoded_lock = threading.Lock()


def _fixed(value) -> bool:
    """Whether ``value`` cannot change: a read-only array (every drawn case's are) or an
    immutable scalar or None (a call with anything else is encoded every time)."""
    if isinstance(value, np.ndarray):  # a view of a writable array could change through it
        base = value.base
        return not value.flags.writeable and (
            base is None or isinstance(base, np.ndarray) and not base.flags.writeable)
    return value is None or type(value) in (bool, int, float)


def _recall(call: Call) -> bytes | None:
    """The kept ``ARGS`` frame of ``call`` (this very object), made the most recently used."""
    with _encoded_lock:
        found = _encoded.get(id(call))
        if found is None or found[0] is not call:
            return None
        _encoded.move_to_end(id(call))
        return found[1]


def _remember(call: Call, frame: bytes) -> None:
    with _encoded_lock:
        _encoded[id(call)] = (call, frame)
        while len(_encoded) > ENCODED_KEPT:
            _encoded.popitem(last=False)


def encode_job(source: str, calls: Sequence[Call], test_cpu_seconds: float = 4.0,
               imports: dict | None = None) -> Job:
    """The job stream: a ``JOB_`` frame (source, call names, each test's CPU seconds, the
    ``paths`` and ``modules`` of the packages it may import) and one ``ARGS`` frame per call,
    split at the first secret call (:class:`Job`). Raises ``wire.EncodeError`` for arguments
    that cannot cross the boundary and ``ValueError`` for a job larger than
    :data:`MAX_JOB_BYTES`."""
    imports = imports or {}
    meta = {"source": source, "test_cpu_seconds": float(test_cpu_seconds),
            "paths": list(imports.get("paths", ())), "modules": list(imports.get("modules", ())),
            "calls": [{"test": call.test, "function": call.function, "kwnames": list(call.kwargs)}
                      for call in calls]}
    parts = [wire.frame(b"JOB_", json.dumps(meta).encode("utf-8"))]
    fast = levers.enabled("sandbox")
    keep = levers.enabled("calls")
    for call in calls:
        found = _recall(call) if keep else None
        if found is not None:
            parts.append(found)
            continue
        values = tuple(call.args) + tuple(call.kwargs.values())
        body = wire.encode_arrays(values) if fast else None
        if body is None:
            body = wire.encode_value(values, allow_none=True, allow_dict=True)
        parts.append(wire.frame(b"ARGS", body))
        if keep and all(_fixed(value) for value in values):
            _remember(call, parts[-1])
    size = sum(len(part) for part in parts)
    if size > MAX_JOB_BYTES:
        raise ValueError(f"job of {size} bytes exceeds {MAX_JOB_BYTES} (source plus arguments)")
    gate = next((index for index, call in enumerate(calls) if call.secret), len(calls))
    return Job(b"".join(parts[:gate + 1]), b"".join(parts[gate + 1:]), gate)


def later_limits(limits: Limits) -> Limits:
    """The limits of the processes that run after ``limits.max_stopped_tests`` tests stopped:
    wall and CPU time per test (the process's import included) cut to :data:`LATER_SECONDS`,
    never above ``limits``. A fixed number, not one read off the learner's own timings: the
    feedback names it, and a learner could otherwise move it with the hidden inputs. The
    reference takes microseconds on every built-in test, so 1 s leaves honest code a margin of
    thousands; a hang then costs its test one short limit instead of the tests after it, and a
    run of ``n`` tests that all hang ends within ``wall_seconds * max_stopped_tests + n *
    (LATER_SECONDS + the start of a process)``, never past ``limits.run_wall_seconds``."""
    return replace(limits, wall_seconds=min(limits.wall_seconds, LATER_SECONDS),
                   cpu_seconds=min(limits.cpu_seconds, LATER_SECONDS))


def _total_time_reached(limits: Limits) -> str:
    return (f"the run's total time limit ({limits.run_wall_seconds:g} s) was reached; the "
            "remaining tests were not run")


def _stopped_call(result: RunResult) -> int | None:
    """Index of the call that stopped the process of a segment whose tests after it may run in
    a fresh one (a time or memory limit, a crash during a call, an oversized return); None when
    the segment ended otherwise (finished, syntax or import error, output flood, forged
    results, infrastructure)."""
    if result.status not in ("timeout", "memory_limit", "crashed") or result.gave_up:
        return None
    if result.broken_stream:
        return None
    for index, outcome in enumerate(result.calls):
        if outcome.stopped:
            return index
    return None


def _outcomes_to_stop(segment: Sequence[Call], stop: int, result: RunResult) -> list:
    """The outcomes of ``segment``'s calls up to the end of the test whose call ``stop``
    stopped the process (the test's later calls skipped), and, when that call was an
    illustration (``Call.optional``), of the illustrations right after it (skipped: an
    illustration costs no limit, nor do its kin)."""
    end, test = _end_of_test(segment, stop), segment[stop].test
    outcomes = list(result.calls[:stop + 1])
    outcomes += [CallOutcome(status="skipped", error=f"not run: test '{test}' stopped earlier")
                 for _ in range(stop + 1, end)]
    if segment[stop].optional:
        while end < len(segment) and segment[end].optional:
            outcomes.append(CallOutcome(status="skipped",
                                        error="not run: an illustration before it stopped"))
            end += 1
    return outcomes


def _end_of_test(calls: Sequence[Call], index: int) -> int:
    """Index just after the last consecutive call of the test that ``calls[index]`` belongs to."""
    end = index + 1
    while end < len(calls) and calls[end].test == calls[index].test:
        end += 1
    return end


def _stop_kind(result: RunResult) -> str:
    if result.status == "crashed" and "returned a value larger than" in result.message:
        return "result_too_large"
    return result.status


def _run_status(stop: StoppedTest) -> str:
    return "crashed" if stop.kind == "result_too_large" else stop.kind


def _start_message(control: socket.socket) -> dict | None:
    """The server's next start-up message (``map``, ``ready``), or None (timeout, garbage)."""
    try:
        data = control.recv(4096)
        message = json.loads(data) if data else None
    except (OSError, ValueError):
        return None
    return message if isinstance(message, dict) else None

