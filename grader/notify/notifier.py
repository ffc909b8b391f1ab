"""The notifier: turns a submission's events into deliveries (one per channel and target), sends
them one attempt at a time, retries with backoff, and replays. See :mod:`grader.notify`."""
from __future__ import annotations

import logging
import random
import uuid
from datetime import timedelta
from typing import Callable, Iterable

from grader.notify.channel import Attempt, Channel
from grader.notify.events import FAILED, GRADED, REGRADED, submission_event
from grader.notify.webhooks import WebhookChannel
from grader.observability import metrics
from grader.store.models import utcnow

log = logging.getLogger(__name__)


def backoff(attempt: int, base: float = 10.0, cap: float = 3600.0) -> float:
    """Seconds before retry number ``attempt`` (1-based): base * 2^(attempt-1), capped, with equal
    jitter (half fixed, half random) so receivers coming back up are not hit in lockstep (AWS
    Architecture Blog, "Exponential Backoff And Jitter")."""
    delay = min(cap, base * 2 ** max(0, attempt - 1))
    return delay / 2 + random.uniform(0, delay / 2)


class Notifier:
    """Creates deliveries for a submission's events and sends them.

    ``schedule(delivery_id)`` hands a delivery to whatever sends it (a Celery task in production, a
    thread on the embedded default); :meth:`attempt` makes one try and logs it. ``channels``: the
    kinds of delivery, by name (default: webhooks only); :meth:`add_channel` adds one.
    ``timeout``: seconds one attempt may take from start to end (``DELIVERY_DEADLINE_SECONDS``;
    the channels enforce it for the whole request, :mod:`grader.notify.http`).
    """

    def __init__(self, store, catalog, schedule: Callable[[str], None],
                 backoff_base: float = 10.0, timeout: float = 5.0, allow_private: bool = True,
                 channels: Iterable[Channel] | None = None):
        self.store = store
        self.catalog = catalog
        self.schedule = schedule
        self.backoff_base = backoff_base
        self.timeout = timeout
        self.channels: dict[str, Channel] = {}
        for channel in channels if channels is not None else [
                WebhookChannel(store, allow_private=allow_private)]:
            self.add_channel(channel)

    def add_channel(self, channel: Channel) -> None:
        """Deliver every later event through ``channel`` too (its ``name`` must be new)."""
        if channel.name in self.channels:
            raise ValueError(f"a channel named {channel.name!r} exists already")
        self.channels[channel.name] = channel

    # -- events --------------------------------------------------------------------------------
    def submission_final(self, submission_id: str, final=None) -> list[str]:
        """Announce a submission that reached ``graded`` or ``failed``; returns the delivery
        ids (none when no channel has a target). ``final``: the row as its grading has just
        stored it (``finished_at`` is when it was scored), announced without reading it and
        its history again; ``None`` reads both."""
        submission = final if final is not None else self.store.get(submission_id)
        if submission is None or submission.status not in ("graded", "failed"):
            return []
        scored_at = submission.finished_at if final is not None else None
        return self._publish(submission, GRADED if submission.status == "graded" else FAILED,
                             scored_at=scored_at)

    def submission_regraded(self, submission_id: str, previous_score: float | None,
                            previous_max_score: float | None,
                            regrade_id: str | None = None, cause: str = "regrade",
                            override: dict | None = None) -> list[str]:
        """Announce a new result of a graded submission: an applied regrade (``regrade_id``) or
        an instructor's override (``cause="override"``, ``override``); ``previous_*``: the
        result it replaced. Each channel decides whether it is news."""
        submission = self.store.get(submission_id)
        if submission is None or submission.status != "graded":
            return []
        return self._publish(submission, REGRADED,
                             previous={"score": previous_score, "max_score": previous_max_score},
                             regrade_id=regrade_id, cause=cause, override=override)

    def replay(self, delivery_id: str):
        """Deliver again, now, what ``delivery_id`` announced, through the same channel to the
        same target, as a new delivery (``replay_of`` names the old one, which is kept as it
        was). Its body holds the submission's **current** result, marked as a replay, so a replay
        never moves a grade backwards. Returns the new delivery, or ``None`` when the old one or
        its channel is unknown."""
        old = self.store.webhooks.get(delivery_id)
        channel = self.channels.get(old.channel) if old is not None else None
        submission = self.store.get(old.submission_id) if old is not None else None
        if channel is None or submission is None:
            return None
        previous = old.payload.get("previous") if old.event == REGRADED else None
        event = submission_event(str(uuid.uuid4()), old.event, submission,
                                 self._scored_at(submission), previous=previous,
                                 regrade_id=old.payload.get("regrade_id"), replay_of=old.id,
                                 cause=old.payload.get("cause"),
                                 override=old.payload.get("override"))
        row = self.store.webhooks.create(submission.course_id, submission.id, old.event, old.url,
                                         channel.body(event, old.url, submission), event["id"],
                                         channel=channel.name, replay_of=old.id)
        self.schedule(row.id)
        return row

    def _publish(self, submission, event_type: str, scored_at=None, **extra) -> list[str]:
        assignment = self.catalog.get(submission.course_id, submission.assignment_id,
                                      submission.assignment_version or None)
        if scored_at is None:
            scored_at = self._scored_at(submission)
        ids = []
        event = submission_event(str(uuid.uuid4()), event_type, submission, scored_at, **extra)
        for channel in self.channels.values():
            for target in channel.targets(submission, assignment, event):
                event = {**event, "id": str(uuid.uuid4())}  # one event id per delivery
                row = self.store.webhooks.create(submission.course_id, submission.id,
                                                 event_type, target,
                                                 channel.body(event, target, submission),
                                                 event["id"], channel=channel.name)
                ids.append(row.id)
        for delivery_id in ids:
            self.schedule(delivery_id)
        return ids

    def _scored_at(self, submission):
        """When the current result was stored: the latest grading or regrade (for a failed
        submission, when it failed)."""
        scored_at = self.store.last_scored_at(submission.id)
        return scored_at if scored_at is not None else submission.finished_at

    # -- sending -------------------------------------------------------------------------------
    def attempt(self, delivery_id: str) -> tuple[bool, float | None]:
        """One delivery attempt. Returns (delivered, seconds until the next try or None)."""
        if not self.store.webhooks.claim(delivery_id, lease_seconds=self.timeout + 30):
            delivery = self.store.webhooks.get(delivery_id)
            return delivery is not None and delivery.status == "delivered", None
        delivery = self.store.webhooks.get(delivery_id)
        channel = self.channels.get(delivery.channel)
        if channel is None:  # a channel this process does not run (not configured here)
            outcome = Attempt(False, None, f"no sender for channel {delivery.channel!r} in this "
                                           "process")
        else:
            try:
                outcome = channel.send(delivery, self.timeout)
            except Exception as exc:  # a sender's bug must not lose the delivery
                log.exception("channel %s failed on delivery %s", delivery.channel, delivery.id)
                outcome = Attempt(False, None, f"internal error: {type(exc).__name__}")
        delay = next_at = None
        if not outcome.delivered and outcome.retry:
            delay = backoff(delivery.attempts + 1, base=self.backoff_base)
            next_at = utcnow() + timedelta(seconds=delay)
            if next_at > delivery.give_up_at:
                next_at, delay = None, None
        self.store.webhooks.record_attempt(delivery.id, outcome.delivered, outcome.status_code,
                                           outcome.error, next_at)
        metrics.record_webhook_delivery(
            "delivered" if outcome.delivered else "failed" if next_at is not None else "gave_up")
        if not outcome.delivered:
            log.warning("%s delivery %s to %s failed (%s); next try in %s s", delivery.channel,
                        delivery.id, delivery.url, outcome.error,
                        None if delay is None else round(delay, 1))
        return outcome.delivered, delay
