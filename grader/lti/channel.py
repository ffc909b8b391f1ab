"""The ``lti-ags`` delivery channel: LTI Assignment and Grade Services scores in the delivery log,
beside webhooks (see :mod:`grader.notify`).

For every event of a submission (graded, failed, regraded, and replays) the channel's targets are
the line items of the learner's grade targets for that assignment (recorded at launch; a link
without a line item gets the container URL, and the line item is found or created on the first
send). Nothing is sent for a submission that is not (part of) the learner's counted grade
(:func:`grader.grading.attempts.counted_attempts`: the assignment's attempt policy); what is sent
is that counted grade. The stored
payload is ``{"grade_target": id, "score": <AGS score>}``; the score's ``timestamp`` is the
event's ``scored_at`` (when that result was stored), so a platform keeps the newest grade even
when an older delivery is retried later. Sending, retries with backoff, the Celery task (or the
in-process thread on the embedded default) and the sweep are the notifier's, as for webhooks.
"""
from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import Any, Mapping
from urllib.parse import quote

from grader import levers
from grader.grading.attempts import counts_for, learner_grade
from grader.lti.ags import ScorePublisher, build_publisher, score_body
from grader.notify.channel import Attempt
from grader.notify.events import FAILED, GRADED, REGRADED, submission_event
from grader.store.models import utcnow

log = logging.getLogger(__name__)

EVENTS = {GRADED: "graded", FAILED: "failed", REGRADED: "regraded"}


def _container_address(row) -> str:
    return f"{row.lineitems_url}#resource_link={quote(row.resource_link_id, safe='')}"


def target_url(row) -> str:
    """A grade target's address in the delivery log: its line item, or, while the link has none,
    the container with the resource link (two links without line items are two targets)."""
    return row.lineitem_url or _container_address(row)


def addresses(row) -> set[str]:
    """Every address a delivery to ``row`` may carry (a replay may predate its line item)."""
    found = {_container_address(row)} if row.lineitems_url else set()
    return found | ({row.lineitem_url} if row.lineitem_url else set())


class LtiScoreChannel:
    """Scores to the LMS gradebook, one delivery per line item."""

    name = "lti-ags"

    def __init__(self, store, publisher: ScorePublisher):
        self.store = store
        self.publisher = publisher

    @classmethod
    def build(cls, config: Mapping[str, Any], store, catalog) -> "LtiScoreChannel":
        return cls(store, build_publisher(config, store, catalog))

    def _targets_of(self, submission):
        return self.store.lti.grade_targets(submission.course_id, submission.assignment_id,
                                            submission.learner_id)

    def _counted(self, submission):
        return learner_grade(self.store, self.publisher.catalog, submission.course_id,
                             submission.assignment_id, submission.learner_id)

    def targets(self, submission, assignment, event: dict[str, Any]) -> list[str]:
        if event.get("type") not in EVENTS:
            return []
        if levers.enabled("worker"):  # one statement for both
            rows, has_platform = self.store.lti.grade_targets_in_course(
                submission.course_id, submission.assignment_id, submission.learner_id)
        else:
            rows = self._targets_of(submission)
            has_platform = not rows and bool(self.store.lti.platforms(submission.course_id))
        if not rows and has_platform:
            # logged, and sent when the learner's first launch records the target
            # (publish_pending)
            log.info("no LTI grade target yet for learner %s on %s/%s: the score is sent when "
                     "they launch from the LMS", submission.learner_id, submission.course_id,
                     submission.assignment_id)
            return []
        # news only when the submission is (part of) the learner's counted grade
        # (grader.grading.attempts: the assignment's attempt policy)
        if not rows or not counts_for(self._counted(submission), submission):
            return []
        return list(dict.fromkeys(target_url(r) for r in rows))

    def body(self, event: dict[str, Any], target: str, submission) -> dict[str, Any]:
        row = next((r for r in self._targets_of(submission) if target in addresses(r)), None)
        scored_at = (event.get("submission") or {}).get("scored_at")
        moment = datetime.fromisoformat(scored_at) if scored_at else utcnow()
        user = row.user_sub if row is not None else ""
        return {"grade_target": row.id if row is not None else None,
                "score": score_body(submission, user, EVENTS[event["type"]], moment,
                                    counted=self._counted(submission))}

    def send(self, delivery, timeout: float) -> Attempt:
        payload = delivery.payload or {}
        return self.publisher.attempt(payload.get("grade_target"), payload.get("score") or {},
                                      timeout=timeout)


def publish_pending(notifier, store, catalog, row) -> str | None:
    """Send grade target ``row`` the learner's current counted grade, if one is final: for a
    target that has just appeared (the learner was graded before their first launch from this
    link) or that can be reached again (its deployment was registered again). One delivery of
    the ``lti-ags`` channel, logged and retried like the others; returns its id, or ``None``
    when there is nothing to send yet (no attempt, or none final: the grading to come sends)."""
    channel = notifier.channels.get(LtiScoreChannel.name)
    counted = learner_grade(store, catalog, row.course_id, row.assignment_id, row.learner_id)
    primary = counted.primary if counted is not None else None
    submission = store.get(primary.id) if primary is not None else None
    if channel is None or submission is None or submission.status not in ("graded", "failed"):
        return None
    event_type = GRADED if submission.status == "graded" else FAILED
    scored_at = store.last_scored_at(submission.id) or submission.finished_at
    event = submission_event(str(uuid.uuid4()), event_type, submission, scored_at)
    url = target_url(row)
    delivery = store.webhooks.create(submission.course_id, submission.id, event_type, url,
                                     channel.body(event, url, submission), event["id"],
                                     channel=channel.name)
    log.info("pending score of %s for %s sent to grade target %s (delivery %s)",
             row.learner_id, row.assignment_id, row.id, delivery.id)
    notifier.schedule(delivery.id)
    return delivery.id
