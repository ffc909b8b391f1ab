"""A small pool of grading processes for the embedded default: grading never runs in the process
(nor under the GIL) that serves pages and the API.

Each child is started with multiprocessing's ``forkserver`` method (a fresh interpreter that
preloaded the grading code, never a fork of the API process with its threads and sockets) and
runs ``target(config, jobs, events, initializer, initargs)`` (the app factory hands over
:func:`workers.grading_process.main`: this package does not import ``workers``). A child builds
its own grading service (store, content, sandbox), takes one job at a time from its ``jobs``
pipe, stores the result itself through the store, and tells the parent on its ``events`` pipe
what the parent must do: wake the long-polls of a final submission (``("final", id)``), send a
delivery (``("deliver", id)``), and that the job is done (``("done", job, value, error)``).

One manager thread in the parent waits on every child's events pipe and process sentinel at
once (:func:`multiprocessing.connection.wait`), hands queued jobs to idle children and, when a
child dies holding a job, calls ``on_crash(job, reason)`` (the dispatcher records an
infrastructure fault: retried, then failed, never a zero) and starts a new child in its place.
"""
from __future__ import annotations

import itertools
import logging
import multiprocessing
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Callable

log = logging.getLogger(__name__)

#: Modules the fork server imports once, so that every child starts warm.
PRELOAD = ["numpy", "grader.problems", "grader.rubric", "workers.grading_process"]


class GradingProcessDied(RuntimeError):
    """The grading process holding a job exited before finishing it."""


@dataclass
class Job:
    """One unit of work for a child: ``kind`` (``grade`` or ``regrade``) of ``ident``."""

    kind: str
    ident: str
    id: int = 0
    future: Future = field(default_factory=Future)
    crashes: int = 0


class _Child:
    def __init__(self, ctx, target, config, initializer, initargs, number: int):
        # Pipe(duplex=False) returns (receiving end, sending end)
        child_jobs, parent_jobs = ctx.Pipe(duplex=False)
        parent_events, child_events = ctx.Pipe(duplex=False)
        self.jobs: Connection = parent_jobs
        self.events: Connection = parent_events
        self.process = ctx.Process(target=target, name=f"grading-{number}",
                                   args=(config, child_jobs, child_events, initializer,
                                         initargs), daemon=True)  # ends with the parent
        self.process.start()
        child_jobs.close()
        child_events.close()
        self.job: Job | None = None
        self.stopping = False

    def stop(self) -> None:
        """Ask the child to exit after its current job (once)."""
        if not self.stopping:
            self.stopping = True
            try:
                self.jobs.send(None)
            except OSError:
                pass

    def close(self) -> None:
        for conn in (self.jobs, self.events):
            try:
                conn.close()
            except OSError:
                pass


class GradingPool:
    """``processes`` grading processes fed from one queue of jobs (started on the first job).

    ``on_event(kind, ident)`` runs in the manager thread for a child's ``final`` and ``deliver``
    events; ``on_crash(job, reason) -> bool`` when a child died holding ``job`` (true: queue the
    job again, its future then follows the new run). ``initializer(*initargs)`` runs in each child
    before its service is built (tests use it to make grading slow inside the child)."""

    def __init__(self, target: Callable, config: dict[str, Any], processes: int = 2, *,
                 on_event: Callable[[str, str], None] = lambda kind, ident: None,
                 on_crash: Callable[[Job, str], bool] = lambda job, reason: False,
                 initializer: Callable | None = None, initargs: tuple = (),
                 start_method: str = "forkserver"):
        self.target, self.config = target, dict(config)
        self.processes = max(1, processes)
        self.on_event, self.on_crash = on_event, on_crash
        self.initializer, self.initargs = initializer, initargs
        self.ctx = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            self.ctx.set_forkserver_preload(PRELOAD)
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._children: list[_Child] = []
        self._ids = itertools.count(1)
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._manager: threading.Thread | None = None
        self._closed = False
        self._kill_at = float("inf")
        self.started = 0  # children started so far (refills included)

    # -- the parent's side ---------------------------------------------------------------------
    def submit(self, kind: str, ident: str) -> Future:
        """Queue ``kind`` of ``ident``; the future gets the child's value (or its error)."""
        job = Job(kind, ident, next(self._ids))
        self._put(job)
        return job.future

    def _put(self, job: Job) -> None:
        with self._lock:
            if self._closed:
                job.future.set_exception(RuntimeError("the grading pool is closed"))
                return
            self._queue.append(job)
            if self._manager is None:
                self._manager = threading.Thread(target=self._manage, name="grading-pool",
                                                 daemon=True)
                self._manager.start()
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_w.send_bytes(b"!")
        except OSError:
            pass

    def waiting(self) -> int:
        """Jobs queued and not yet handed to a child."""
        with self._lock:
            return len(self._queue)

    def start(self) -> None:
        """Start the children now instead of on the first job (a server warms them at start)."""
        with self._lock:
            if self._manager is None and not self._closed:
                self._manager = threading.Thread(target=self._manage, name="grading-pool",
                                                 daemon=True)
                self._manager.start()

    def pids(self) -> list[int]:
        """The process ids of the children in the pool (a dead one leaves it as soon as the
        manager sees it die; for tests and the benchmark)."""
        with self._lock:
            return [c.process.pid for c in self._children]

    def close(self, timeout: float = 10.0) -> None:
        """Stop taking jobs, ask every child to finish its current job and exit, and kill those
        still running after ``timeout`` seconds (the manager thread does it: only that thread
        touches the children's process state). Jobs not yet handed out fail."""
        with self._lock:
            self._closed = True
            self._kill_at = time.monotonic() + timeout
            pending, self._queue = list(self._queue), deque()
            manager = self._manager
        for job in pending:
            job.future.set_exception(RuntimeError("the grading pool is closed"))
        self._wake()  # the manager tells every child to stop
        if manager is not None:
            manager.join(timeout + 15)
        if manager is None or not manager.is_alive():
            for conn in (self._wake_r, self._wake_w):
                conn.close()

    # -- the manager thread --------------------------------------------------------------------
    def _start_child(self) -> _Child:
        self.started += 1
        return _Child(self.ctx, self.target, self.config, self.initializer, self.initargs,
                      self.started)

    def _manage(self) -> None:
        try:
            started = [self._start_child() for _ in range(self.processes)]  # outside the lock
            with self._lock:
                self._children = started
            while True:
                timeout = None
                with self._lock:
                    if self._closed:
                        for child in self._children:
                            child.stop()
                        if not self._children:
                            return
                        timeout = max(0.0, self._kill_at - time.monotonic())
                        if timeout == 0.0:
                            for child in self._children:
                                child.process.kill()  # past the grace: SIGKILL
                            timeout = 1.0
                    self._hand_out()
                    children = list(self._children)
                waitables = [self._wake_r] + [c.events for c in children] + \
                            [c.process.sentinel for c in children]
                ready = wait(waitables, timeout)
                if self._wake_r in ready:
                    while self._wake_r.poll():
                        self._wake_r.recv_bytes()
                for child in children:
                    if child.events in ready and not self._read(child):
                        child.process.join(1)  # its pipe closed: it is exiting
                    if child.process.sentinel in ready or not child.process.is_alive():
                        self._drain(child)
                        self._died(child)
        except Exception:  # the manager must not die silently: every job would wait forever
            log.exception("the grading pool's manager failed")
            raise

    def _hand_out(self) -> None:
        for child in self._children:
            if not self._queue:
                return
            if child.job is None and child.process.is_alive():
                job = self._queue.popleft()
                child.job = job
                try:
                    child.jobs.send((job.kind, job.id, job.ident))
                except OSError:  # it died meanwhile: its sentinel says so next round
                    pass

    def _drain(self, child: _Child) -> None:
        """Read what a dead child wrote before it died (its last events still count)."""
        try:
            while child.events.poll() and self._read(child):
                pass
        except (EOFError, OSError):
            pass

    def _read(self, child: _Child) -> bool:
        """Handle one message of ``child``; false when its pipe is closed (it exited)."""
        try:
            message = child.events.recv()
        except (EOFError, OSError):
            return False  # closed: the sentinel tells the rest
        kind = message[0]
        if kind == "done":
            _, job_id, value, error = message
            job, child.job = child.job, None
            if job is not None and job.id == job_id:
                if error is None:
                    job.future.set_result(value)
                else:
                    job.future.set_exception(RuntimeError(error))
            self._wake()
        elif kind in ("final", "deliver"):
            try:
                self.on_event(kind, message[1])
            except Exception:
                log.exception("handling %s %s from a grading process failed", kind, message[1])
        return True

    def _died(self, child: _Child) -> None:
        child.process.join(1)
        code = child.process.exitcode
        reason = (f"the grading process exited with code {code}" if code is None or code >= 0
                  else f"the grading process was killed by signal {-code}")
        child.close()
        job, child.job = child.job, None
        with self._lock:
            self._children.remove(child)
            replace = not self._closed
        if replace:  # refill first: the pool keeps its size, before anyone hears of the crash
            new = self._start_child()
            with self._lock:
                self._children.append(new)
        if job is not None:
            job.crashes += 1
            log.error("%s while grading %s %s", reason, job.kind, job.ident)
            again = False
            try:
                again = bool(self.on_crash(job, reason))
            except Exception:
                log.exception("recording the crash of %s %s failed", job.kind, job.ident)
            if again:
                self._put(job)
            elif not job.future.done():
                job.future.set_exception(GradingProcessDied(reason))
