"""The rows of ``grades.csv``: one per learner (their counted grade, :mod:`grader.grading.attempts`)
or one per attempt, with one score and maximum column per item, the override of each item, and
the lateness and late penalty. Pure: rows in, table out (the API writes it as CSV).

Columns, in order (the first seven are those grades.csv always had, with the same meaning under
the default ``latest`` policy): ``learner_id, score, max_score, submitted_at, graded_at, status,
submission_id``, then ``attempt_policy, counted_submissions, attempts, late, days_late,
late_penalty``, then for each item of the assignment ``<item>:score, <item>:max_score,
<item>:override``.

``graded_at`` is when the counted score was last *changed*: the first grading, or the newest
regrade or override that changed the score (a regrade giving the same score leaves it).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from grader.grading.adjustments import late_of, late_penalty, override_of
from grader.grading.attempts import Counted, count_one, counted_attempts

BASE_COLUMNS = ["learner_id", "score", "max_score", "submitted_at", "graded_at", "status",
                "submission_id"]
COUNTING_COLUMNS = ["attempt_policy", "counted_submissions", "attempts", "late", "days_late",
                    "late_penalty"]
ITEM_COLUMNS = ("score", "max_score", "override")


def graded_at(records: Iterable[tuple[datetime, float, Any]]) -> datetime | None:
    """When the score of a submission last changed, from its history records ``(created_at,
    score, ...)`` oldest first (``None`` without any)."""
    changed, previous = None, object()
    for created_at, score, *_ in records:
        if score != previous:
            changed, previous = created_at, score
    return changed


def columns(item_ids: Iterable[str]) -> list[str]:
    """The header of grades.csv for an assignment whose items are ``item_ids``."""
    return BASE_COLUMNS + COUNTING_COLUMNS + [f"{item}:{what}" for item in item_ids
                                              for what in ITEM_COLUMNS]


def _row(counted: Counted, by_id: dict[str, Any], timeline: dict, item_ids: list[str],
         attempts: str) -> dict[str, Any]:
    primary = counted.primary
    sources = [by_id[s] for s in counted.sources if s in by_id]
    graded = counted.graded
    times = [graded_at(timeline.get(s.id, ())) or s.finished_at for s in sources] if graded \
        else []
    lates = [late_of(s.results or []) for s in sources] if graded else []
    lates = [late for late in lates if late]
    item_results = {}
    for item_id, counted_item in counted.items.items():
        source = by_id.get(counted_item.submission_id)
        item_results[item_id] = next((i for i in (source.results or []) if
                                      i.get("item_id") == item_id), None) if source else None
    row = {"learner_id": counted.learner_id, "score": counted.score,
           "max_score": counted.max_score if graded else primary.max_score,
           "submitted_at": primary.received_at, "graded_at": max(times) if times else None,
           "status": counted.status, "submission_id": primary.id,
           "attempt_policy": counted.policy if attempts == "latest" else "",
           "counted_submissions": " ".join(counted.sources) if graded else "",
           "attempts": counted.attempts if attempts == "latest" else "",
           "late": ("late" if any(late["status"] == "late" for late in lates) else "on time")
           if lates else "",
           "days_late": max(int(late.get("days_late") or 0) for late in lates) if lates else "",
           "late_penalty": round(sum(late_penalty(i) for i in item_results.values() if i), 4)
           if lates else ""}
    for item_id in item_ids:
        counted_item = counted.items.get(item_id)
        override = override_of(item_results.get(item_id) or {})
        row[f"{item_id}:score"] = counted_item.score if counted_item else None
        row[f"{item_id}:max_score"] = counted_item.max_score if counted_item else None
        row[f"{item_id}:override"] = override["score"] if override else None
    return row


def gradebook(rows: list, item_ids: list[str], policy: str, timeline: dict,
              attempts: str = "latest") -> list[dict[str, Any]]:
    """The rows of grades.csv (dicts keyed by :func:`columns`): ``attempts="latest"`` one per
    learner, their counted grade under ``policy``, in learner id order; ``"all"`` one per
    attempt, in the order of ``rows`` (the assignment's submissions, oldest first).
    ``timeline``: :meth:`grader.store.db.Store.grade_timeline`."""
    by_id = {row.id: row for row in rows}
    if attempts == "all":
        return [_row(count_one(row.learner_id, [row]), by_id, timeline, item_ids, attempts)
                for row in rows]
    return [_row(counted, by_id, timeline, item_ids, attempts)
            for counted in counted_attempts(rows, policy).values()]
