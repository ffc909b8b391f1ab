"""Regrading an assignment after its rubric or test suite changed.

A dry run reports, per graded submission, the old score, the new score and the difference, and
changes nothing. Applying stores the new results beside the old ones (the history keeps both, with
the versions they were scored with) and announces each one (``submission.regraded``: webhooks
when the score changed, see :mod:`grader.notify`). A submission whose regrade hits an infrastructure fault keeps
its score and is reported with the error.
"""
from __future__ import annotations

import logging

from grader.grading.service import (grade_responses, scored_versions, submission_budget,
                                    submission_seed)
from grader.items import GradingContext
from grader.results import InfrastructureError

log = logging.getLogger(__name__)


def announce(service, submission, run_id: str) -> None:
    """Tell the submission's receivers that a regrade stored a new result (``submission.
    regraded``, with the score it replaced); a notification fault never undoes the regrade."""
    notifier = getattr(service, "notifier", None)
    if notifier is None:
        return
    try:
        notifier.submission_regraded(submission.id, submission.score, submission.max_score,
                                     run_id)
    except Exception:
        log.exception("announcing the regrade of %s failed", submission.id)


def run_regrade(service, run_id: str) -> list[dict]:
    """Execute regrade run ``run_id`` with ``service`` (store, catalog, sandbox); returns the
    report also stored on the run."""
    store = service.store
    run = store.regrades.get(run_id)
    store.regrades.set_status(run_id, "running")
    report: list[dict] = []
    try:
        assignment = service.catalog.get(run.course_id, run.assignment_id)
        for submission in store.submissions_of(run.course_id, run.assignment_id, ["graded"]):
            entry = {"submission_id": submission.id, "learner_id": submission.learner_id,
                     "old_score": submission.score, "new_score": None, "difference": None,
                     "applied": False}
            ctx = GradingContext(seed=submission_seed(service.secret, submission.id),
                                 sandbox=service.lazy_sandbox(),
                                 budget=submission_budget(service.cpu_seconds))
            try:
                results = grade_responses(assignment, submission.responses, ctx)
            except InfrastructureError as exc:
                entry["error"] = f"infrastructure fault, score kept: {exc}"
                report.append(entry)
                continue
            new_score = round(sum(r.score for r in results), 4)
            max_score = round(sum(r.max_score for r in results), 4)
            entry.update(new_score=new_score, max_score=max_score,
                         difference=round(new_score - (submission.score or 0.0), 6))
            if not run.dry_run:
                entry["applied"] = store.apply_regrade(
                    submission.id, new_score, max_score, [r.to_dict() for r in results],
                    scored_versions(assignment, results))
                if entry["applied"]:
                    announce(service, submission, run_id)
            report.append(entry)
    except Exception as exc:
        log.exception("regrade %s failed", run_id)
        report.append({"error": f"the regrade stopped: {type(exc).__name__}: {exc}"[:500]})
        store.regrades.set_status(run_id, "failed", report)
        raise
    store.regrades.set_status(run_id, "done", report)
    return report
