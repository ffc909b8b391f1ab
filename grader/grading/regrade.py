"""Regrading an assignment after its rubric, key, test suite, due date or late policy changed.

A dry run reports, per graded submission, the old score, the new score and the difference, and
changes nothing. Applying stores the new results beside the old ones (the history keeps both, with
the versions they were scored with) and announces each one (``submission.regraded``: webhooks
when the score changed, see :mod:`grader.notify`). A submission whose regrade hits an infrastructure fault keeps
its score and is reported with the error.

The run says what it applies and what it replaces (``versions``): per item the rubric version,
choice key or problem the current assignment scores with, and the ones the submissions were
scored with before, with how many submissions each (e.g. ``heads-why v1 -> v2`` for 3). Each
entry lists its items whose version changes (``changed``). The late penalty is computed again
(the learner's due date now, extensions included). An instructor's override is kept: the entry
lists each overridden item with the score kept and what the tests would give now
(``overrides``), and ``new_score`` is the score with the overrides.
"""
from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from grader import levers
from grader.grading.adjustments import Override, adjust, engine_score, totals
from grader.grading.due import submission_lateness
from grader.grading.service import (grade_responses, item_versions, scored_versions,
                                    recorded_seeds, submission_budget, submission_seed)
from grader.items import GradingContext
from grader.results import InfrastructureError
from grader.store.overrides import in_force

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


def describe(kind: str, versions: dict[str, Any] | None) -> str:
    """One item's scoring version in words: ``heads-why v2``, ``key B``, ``problem softmax``
    (``unknown`` for a record made before versions were kept)."""
    versions = versions or {}
    if kind == "text" and versions.get("rubric_id"):
        return f"{versions['rubric_id']} v{versions.get('rubric_version') or '?'}"
    if kind == "choice" and versions.get("key"):
        return f"key {versions['key']}"
    if versions.get("problem"):
        return f"problem {versions['problem']}"
    return "unknown"


def _old_versions(service, submission, timeline) -> dict[str, Any]:
    """What ``submission`` was scored with last: its newest history record's item versions; a
    choice key recorded before keys were kept is read from the assignment version used."""
    records = timeline.get(submission.id) or []
    versions = dict(records[-1][2]) if records else {}
    items = {k: dict(v) for k, v in (versions.get("items") or {}).items()}
    used = service.catalog.get(submission.course_id, submission.assignment_id,
                               versions.get("assignment") or submission.assignment_version or None)
    for item_id, item in (used.items.items() if used is not None else ()):
        items.setdefault(item_id, {})
        for key, value in item_versions(item).items():
            items[item_id].setdefault(key, value)
    return items


def _plan(assignment, olds: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's ``versions``: what it applies per item, and what the submissions had."""
    items = []
    for item in assignment.items.values():
        applies = describe(item.kind, item_versions(item))
        was = Counter(describe(item.kind, old.get(item.id)) for old in olds)
        items.append({"item_id": item.id, "kind": item.kind, "applies": applies,
                      "follows": item.spec.get("rubric_follows") if item.kind == "text" else None,
                      "was": [{"version": v, "submissions": n} for v, n in sorted(was.items())],
                      "changes": sum(n for v, n in was.items() if v != applies)})
    return {"assignment_version": assignment.version, "items": items}


def _regrade_one(service, assignment, submission, entry: dict, decisions: list,
                 dry_run: bool, run_id: str, announce_it: bool = True) -> dict:
    """Grade ``submission`` (graded) again with ``assignment`` (the current version), keeping
    the overrides in force, and store the result unless ``dry_run``; fills and returns the
    report ``entry``."""
    store = service.store
    ctx = GradingContext(seed=submission_seed(service.secret, submission.id),
                         sandbox=service.lazy_sandbox(),
                         budget=submission_budget(service.cpu_seconds),
                         seeds=recorded_seeds(submission.results), seed_pool=False)
    try:
        results = grade_responses(assignment, submission.responses, ctx)
    except InfrastructureError as exc:
        entry["error"] = f"infrastructure fault, score kept: {exc}"
        return entry
    late = submission_lateness(store, service.catalog, submission)
    fresh = [r.to_dict() for r in results]

    def adjusted(items, overrides, late=late):
        decided = {k: Override(k, r.score, r.comment) for k, r in overrides.items()
                   if any(i.get("item_id") == k for i in items)}
        out = adjust(items, late, decided)
        return (out, *totals(out))

    new_results, new_score, max_score = adjusted(fresh, in_force(decisions))
    kept = [{"item_id": i["item_id"], "score": i["score"], "engine_score": engine_score(i)}
            for i in new_results if (i.get("extra_data") or {}).get("override")]
    if kept:
        entry["overrides"] = kept
    entry.update(new_score=new_score, max_score=max_score,
                 difference=round(new_score - (submission.score or 0.0), 6))
    if not dry_run:
        entry["applied"] = store.apply_regrade(
            submission.id, new_score, max_score, fresh,
            scored_versions(assignment, results), adjust=adjusted)
        if entry["applied"] and announce_it:
            announce(service, submission, run_id)
    return entry


def follow_regrades(service, submission) -> str | None:
    """Regrade ``submission``, just graded, with the assignment's current version when an
    applied regrade run was created after it was received (the run met it queued or running,
    so it could not cover it). Not announced: the caller announces the submission's result,
    which is then the regraded one. Returns the run's id, or ``None`` when no run applies."""
    runs = service.store.regrades.applied_since(submission.course_id, submission.assignment_id,
                                                submission.received_at)
    if not runs and levers.enabled("worker"):
        return None  # nothing to follow: the row need not be read
    current = service.store.get(submission.id)
    if not runs or current is None or current.status != "graded":
        return None
    assignment = service.catalog.get(submission.course_id, submission.assignment_id)
    if assignment is None:
        return None
    decisions = service.store.overrides.of_course(submission.course_id, [submission.id])
    entry = {"submission_id": submission.id, "applied": False}
    _regrade_one(service, assignment, current, entry, decisions.get(submission.id, []),
                 dry_run=False, run_id=runs[0].id, announce_it=False)
    if entry.get("error"):
        log.warning("regrade %s of %s after its grading: %s", runs[0].id, submission.id,
                    entry["error"])
    return runs[0].id if entry.get("applied") else None


def run_regrade(service, run_id: str) -> list[dict]:
    """Execute regrade run ``run_id`` with ``service`` (store, catalog, sandbox); returns the
    report also stored on the run (its ``versions`` too)."""
    store = service.store
    run = store.regrades.get(run_id)
    store.regrades.set_status(run_id, "running")
    report: list[dict] = []
    plan = None
    try:
        assignment = service.catalog.get(run.course_id, run.assignment_id)
        # one snapshot: a submission graded between two queries would be in neither
        every = store.submissions_of(run.course_id, run.assignment_id,
                                     ["graded", "queued", "running"])
        submissions = [s for s in every if s.status == "graded"]
        timeline = store.grade_timeline(run.course_id, run.assignment_id)
        decisions = store.overrides.of_course(run.course_id, [s.id for s in submissions])
        olds = [_old_versions(service, s, timeline) for s in submissions]
        plan = _plan(assignment, olds)
        applies = {i["item_id"]: i["applies"] for i in plan["items"]}
        for submission, old in zip(submissions, olds):
            entry = {"submission_id": submission.id, "learner_id": submission.learner_id,
                     "old_score": submission.score, "new_score": None, "difference": None,
                     "applied": False}
            changed = [{"item_id": item.id, "old": describe(item.kind, old.get(item.id)),
                        "new": applies[item.id]} for item in assignment.items.values()
                       if describe(item.kind, old.get(item.id)) != applies[item.id]]
            if changed:
                entry["changed"] = changed
            report.append(_regrade_one(service, assignment, submission, entry,
                                       decisions.get(submission.id, []), run.dry_run, run_id))
        # not graded yet (queued, or being graded with the version they were submitted
        # against): the grading service regrades each with the current version as soon as it
        # is graded (follow_regrades), before announcing it
        for submission in (s for s in every if s.status != "graded"):
            report.append({"submission_id": submission.id, "learner_id": submission.learner_id,
                           "status": submission.status, "old_score": None, "new_score": None,
                           "difference": None, "applied": False,
                           "deferred": "not graded yet: scored with this version when its "
                                       "grading ends" if not run.dry_run else
                                       "not graded yet"})
    except Exception as exc:
        log.exception("regrade %s failed", run_id)
        report.append({"error": f"the regrade stopped: {type(exc).__name__}: {exc}"[:500]})
        store.regrades.set_status(run_id, "failed", report, versions=plan)
        raise
    store.regrades.set_status(run_id, "done", report, versions=plan)
    return report
