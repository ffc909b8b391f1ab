"""The seed a grading of an authored problem draws its hidden inputs from: one of the version's
pool of ready seeds (:meth:`grader.problems.authored.executor.SandboxExecutor.take`), whose
reference and mistakes' values were computed before, :data:`POOL_SIZE` seeds in one sandbox run
(at the trial, :func:`fill`, and topped up off the grading's path, :func:`top_up`), so the
grading runs only the learner's code, as a built-in's does. An empty pool gives the
submission's own seed and its values computed in the grading, as before pools.

A seed taken from the pool is recorded on the item's result (``extra_data`` :data:`SEED_KEY`,
never shown to the learner: :func:`grader.api.submissions.learner_items`); a regrade passes it
back (:attr:`grader.items.base.GradingContext.seeds`), so it draws the same inputs and finds
their values cached, or computes them again. Seeds are random 63-bit numbers
(:mod:`secrets`), as unguessable as the submission's own.
"""
from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

from grader.problems import pictures
from grader.problems.authored.executor import POOL_SIZE, SandboxExecutor
from grader.problems.base import CodeProblem

log = logging.getLogger(__name__)

#: The pool is topped up (in the background) when fewer seeds than this are ready.
POOL_LOW = POOL_SIZE // 2
#: Where an item's result records the seed its grading took from the pool.
SEED_KEY = "seed"

_top_ups: "weakref.WeakKeyDictionary[SandboxExecutor, threading.Thread]" = (
    weakref.WeakKeyDictionary())  # each pool's last top-up thread
_lock = threading.Lock()


def pooled(problem: CodeProblem) -> bool:
    """Whether ``problem`` is an authored one (its values computed in the sandbox, a pool)."""
    return isinstance(getattr(problem, "executor", None), SandboxExecutor)


def fill(problem: CodeProblem, sandbox: Any) -> list[int]:
    """Fill ``problem``'s pool to :data:`POOL_SIZE` seeds, in one run of ``sandbox`` (the
    trial's, once the problem passed; the top-up's). Returns the seeds added. Raises
    :class:`grader.results.InfrastructureError` when the sandbox cannot run the reference."""
    return problem.executor.fill(problem.cases, sandbox,
                                 also=pictures.reference_cases(problem))


def top_up(problem: CodeProblem, sandbox: Any) -> threading.Thread | None:
    """When ``problem``'s pool holds fewer than :data:`POOL_LOW` seeds and no top-up is running,
    start one in a daemon thread (never the grading's own: it goes on without waiting), filling
    it with ``sandbox`` (thread-safe: its jobs are serialised). Returns the thread started, or
    None. A fault there is logged; the next grading starts another."""
    executor = problem.executor
    if executor.ready() >= POOL_LOW:
        return None
    with _lock:
        running = _top_ups.get(executor)
        if running is not None and running.is_alive():
            return None

        def run() -> None:
            try:
                fill(problem, sandbox)
            except Exception as exc:
                log.warning("topping up the seeds of problem %s failed: %s", problem.id, exc)

        thread = threading.Thread(target=run, name=f"seed pool {problem.id}", daemon=True)
        _top_ups[executor] = thread
        thread.start()
    return thread


def last_top_up(problem: CodeProblem) -> threading.Thread | None:
    """The last top-up thread :func:`top_up` started for ``problem``'s pool (running or
    finished), or None."""
    with _lock:
        executor = getattr(problem, "executor", None)
        return _top_ups.get(executor) if isinstance(executor, SandboxExecutor) else None


def seed_for(problem: CodeProblem, own_seed: int, recorded: int | None, sandbox: Any,
             shared: int | None = None) -> tuple[int, bool]:
    """``(seed, recorded)`` of one grading of ``problem``: ``recorded`` when an earlier grading
    recorded one (a regrade); for an authored problem a seed taken from the pool (recorded:
    True; the pool topped up in the background when it runs low, :func:`top_up`), else
    ``own_seed`` (the submission's, recorded: False; a top-up started for the next gradings);
    for a built-in, ``shared`` when given (one of the seeds shared by all submissions,
    :func:`grader.grading.service.shared_seed`; recorded: True), else ``own_seed``."""
    if recorded is not None:
        return int(recorded), True
    if not pooled(problem):
        return (own_seed, False) if shared is None else (int(shared), True)
    seed = problem.executor.take()
    top_up(problem, sandbox)
    if seed is None:
        return own_seed, False
    return seed, True


__all__ = ["POOL_LOW", "SEED_KEY", "fill", "last_top_up", "pooled", "seed_for", "top_up"]
