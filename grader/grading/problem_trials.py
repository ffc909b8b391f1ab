"""Trials of authored problems on a worker (production mode, where the API process has no
sandbox): ``POST /api/v1/problems`` stores the upload as ``pending`` and queues
``workers.tasks.problem_trial(trial_id)``; :func:`run_problem_trial` runs it here, in a fresh
sandbox of the worker's, and stores the report, and for an upload the visible examples' values
and the version's status (``passed``, or ``refused`` with the reason). Only a passed version is
usable by code items (:func:`grader.api.problems.resolve_problems`).

Idempotent like the grading tasks: a redelivered trial of a final run does nothing, and a version
is settled once (:meth:`grader.store.content.ContentRepository.settle_problem_version`).
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from grader.problems.authored import DocumentError, compile_document, load_document
from grader.problems.authored import registry
from grader.problems.authored.executor import encode
from grader.problems.authored.trial import trial
from grader.results import InfrastructureError

log = logging.getLogger(__name__)


def run_problem_trial(store, sandbox_factory: Callable[[], Any], trial_id: str) -> str | None:
    """Run the stored trial ``trial_id`` and store its outcome. Returns the run's final status
    (``done`` or ``failed``), or None when there was nothing to run (unknown, already final).

    ``sandbox_factory()`` gives a sandbox (closed afterwards); when it raises, or the trial meets
    an infrastructure fault (:class:`grader.results.InfrastructureError`), the run is ``failed``
    with the reason and an upload's version ``failed`` (``POST /problems/<id>/trial`` runs it
    again), never ``refused``."""
    run = store.problem_trials.get(trial_id)
    if run is None or not store.problem_trials.start(trial_id):
        return None
    record = store.content.problem(run.course_id, run.problem_id, run.version)
    if record is None:
        store.problem_trials.finish(trial_id, None, "the problem version no longer exists")
        return "failed"
    try:
        doc = load_document(record.document)
        problem = compile_document(record.document)
    except DocumentError as exc:  # validated at upload; a later schema may still refuse it
        return _settle(store, run, None, f"invalid_problem: {exc}", refused=True)
    try:
        sandbox = sandbox_factory()
    except Exception as exc:  # SandboxUnavailable and whatever starting it raised
        return _settle(store, run, None, f"sandbox_unavailable: {exc}")
    try:
        report = trial(problem, doc, sandbox, with_mutants=run.mutants)
        expected = encode(problem.executor.visible_values())
    except InfrastructureError as exc:
        return _settle(store, run, None, f"sandbox_unavailable: {exc}")
    finally:
        sandbox.close()
    if run.decides and not report["refused"]:  # this process grades it: keep its pool of seeds
        registry.adopt({"course": run.course_id, "id": run.problem_id, "version": run.version},
                       problem)
    return _settle(store, run, report, None, expected=expected)


def _settle(store, run, report: dict | None, error: str | None, expected: dict | None = None,
            refused: bool = False) -> str:
    """Store the run's outcome and, for a deciding run, the version's."""
    if run.decides:
        if error is None:
            status = "refused" if report["refused"] else "passed"
        else:
            status = "refused" if refused else "failed"
        store.content.settle_problem_version(
            run.course_id, run.problem_id, run.version, status,
            report if report is not None else {"refused": error if refused else None,
                                               "error": error},
            expected if status == "passed" else {})
    store.problem_trials.finish(run.id, report, error)
    log.info("trial %s of %s@%s: %s", run.id, run.problem_id, run.version,
             error or ("refused" if report["refused"] else "passed"))
    return "failed" if error else "done"
