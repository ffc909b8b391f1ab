"""The events a submission's path announces, as one JSON-ready mapping per event.

Types: ``submission.graded`` and ``submission.failed`` (the first final state),
``submission.regraded`` (an applied regrade, or an instructor's override, stored a new result). Every event carries the
submission's **current** result and when that result was scored (``scored_at``), so a receiver can
drop an event older than the grade it holds (the rule of LTI Assignment and Grade Services
scores: a platform ignores a score whose timestamp is older than the last one it stored).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from grader.store.models import utcnow

GRADED, FAILED, REGRADED = "submission.graded", "submission.failed", "submission.regraded"
EVENT_TYPES = (GRADED, FAILED, REGRADED)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def submission_event(event_id: str, event_type: str, submission, scored_at: datetime | None,
                     previous: dict[str, float | None] | None = None,
                     regrade_id: str | None = None, replay_of: str | None = None,
                     base_url: str = "", cause: str | None = None,
                     override: dict[str, Any] | None = None) -> dict[str, Any]:
    """The event ``event_id`` of type ``event_type`` about ``submission`` (a
    :class:`grader.store.models.Submission` as it is now).

    ``scored_at``: when the current result was stored (the latest grading or regrade; for a
    failed submission, when it failed). ``previous``: ``{"score", "max_score"}`` before a regrade.
    ``replay_of``: the id of the event this one replays (``replay`` is then true): a replay
    carries the current result, never the replayed event's old one. Scores are points, as in
    the API (``score`` of ``max_score``). A regraded event says its ``cause``: ``regrade`` (a
    regrade run, ``regrade_id``) or ``override`` (an instructor set an item's score:
    ``override`` = ``{"item_id", "score", "comment"}``, ``score`` ``null`` when removed)."""
    event: dict[str, Any] = {
        "id": event_id,
        "type": event_type,
        "created_at": utcnow().isoformat(),
        "replay": replay_of is not None,
        "replay_of": replay_of,
        "submission": {
            "id": submission.id,
            "assignment_id": submission.assignment_id,
            "learner_id": submission.learner_id,
            "status": submission.status,
            "score": submission.score,
            "max_score": submission.max_score,
            "received_at": _iso(submission.received_at),
            "finished_at": _iso(submission.finished_at),
            "scored_at": _iso(scored_at),
            "failure_reason": submission.failure_reason,
            "url": f"{base_url}/api/v1/submissions/{submission.id}",
        },
    }
    if event_type == REGRADED:
        event["previous"] = previous or {"score": None, "max_score": None}
        event["regrade_id"] = regrade_id
        event["cause"] = cause or "regrade"
        if override is not None:
            event["override"] = override
    return event
