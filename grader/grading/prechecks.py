"""Prechecks of a submission's code items (:mod:`grader.problems.precheck`): the visible
examples only, at once, on one sandbox kept for the process (made on first use; its runs are
serialised by the sandbox's own lock). Nothing is stored: the caller answers with the result.
"""
from __future__ import annotations

import atexit
import threading
from typing import Any, Callable

from grader.budget import BudgetExceeded
from grader.grading.service import submission_budget
from grader.items.code import EMPTY_CODE, problem_of, response_source
from grader.problems.precheck import precheck
from grader.results import InfrastructureError


class Prechecks:
    """Runs prechecks on a sandbox from ``sandbox_factory`` (``() -> sandbox``, e.g.
    :func:`grader.runtime.make_sandbox` with the app's configuration), made on first use and
    closed at exit (or by :meth:`close`)."""

    def __init__(self, sandbox_factory: Callable[[], Any]):
        self._factory = sandbox_factory
        self._sandbox = None
        self._lock = threading.Lock()

    def sandbox(self):
        """The process's precheck sandbox; raises
        :class:`~grader.sandbox.SandboxUnavailable` when it cannot be made."""
        with self._lock:
            if self._sandbox is None:
                self._sandbox = self._factory()
                atexit.register(self.close)
            return self._sandbox

    def close(self) -> None:
        with self._lock:
            sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            sandbox.close()

    def check(self, assignment, responses: dict[str, dict]) -> list[dict[str, Any]]:
        """:func:`check_items` on this process's sandbox."""
        return check_items(assignment, responses, self.sandbox)


def check_items(assignment, responses: dict[str, dict],
                sandbox_of: Callable[[], Any]) -> list[dict[str, Any]]:
    """One :meth:`grader.problems.precheck.PrecheckResult.to_dict` per code item answered in
    ``responses`` (validated already), in the assignment's order, run on ``sandbox_of()`` (called
    only when a code item needs it); other kinds have no visible examples and are left out. An
    empty code response is answered without a run. Raises :class:`InfrastructureError` when the
    sandbox fails or the trusted side's CPU budget runs out (never the learner's fault)."""
    results, budget = [], submission_budget()
    for item in assignment.items.values():
        response = responses.get(item.id)
        if item.kind != "code" or response is None:
            continue
        problem = problem_of(item)
        code, notes = response_source(response)
        if not code.strip():
            results.append({"item_id": item.id, "kind": "code", "problem": problem.id,
                            "passed": 0, "total": len(problem.visible_cases()), "tests": [],
                            "output": "\n".join(filter(None, [notes, EMPTY_CODE])),
                            "stdout": "", "seconds": 0.0})
            continue
        try:
            found = precheck(problem, item.id, code, sandbox_of(), item.spec["limits"], budget)
        except BudgetExceeded as exc:
            raise InfrastructureError(f"item {item.id!r}: {exc}") from exc
        found.summary = "\n".join(filter(None, [notes, found.summary]))
        results.append(found.to_dict())
    return results
