"""The last step of a submission's path: telling others, through the delivery log, that its
result is final or changed.

**Events** (:mod:`grader.notify.events`): ``submission.graded`` / ``submission.failed`` when a
submission first becomes final, ``submission.regraded`` when an applied regrade stores a new
result. Each event carries the submission's current result and ``scored_at``.

**The delivery log** (table ``webhook_deliveries``, :class:`grader.store.models.WebhookDelivery`,
:class:`grader.store.webhooks.WebhookRepository`): one row per (event, channel, target) with its
attempts. Rows are only added, never reopened: a replay is a new row with ``replay_of``; a newer
event about the same submission for the same channel and target marks older pending rows
``superseded``, so an old result is never sent after a newer one.

**Channels** (:class:`grader.notify.channel.Channel`): each kind of delivery is one class with a
``name`` (stored in the row's ``channel`` column), ``targets(submission, assignment, event)``
(where an event goes: URLs), ``body(event, target, submission)`` (what is sent, stored as the
row's payload) and ``send(delivery, timeout) -> Attempt`` (one try: sign or authorise, POST,
report). The :class:`Notifier` does the rest for every channel alike: creates the rows,
schedules them (a Celery task or a thread), claims each attempt so that two senders never send
it twice, retries with exponential backoff and jitter for 25 h, records every attempt, replays.

Today's channel is ``webhook`` (:class:`grader.notify.webhooks.WebhookChannel`: an HMAC-signed
POST to the submission's and the assignment's callback URLs). Another kind of delivery, such as
an LTI Assignment and Grade Services score POST to a line item's ``/scores`` URL, joins by
implementing :class:`Channel` (e.g. ``name = "lti-ags"``, targets = the line items the learner's
launches created, body = the AGS score with ``timestamp`` = the event's ``scored_at``, send = POST
with an OAuth 2 bearer token) and being added with :meth:`Notifier.add_channel` where the notifier
is built (:func:`grader.runtime.build_service` and :func:`grader.app.create_app`); it then
gets every grading, failure, regrade and replay, its rows show in ``GET /api/v1/webhooks/
deliveries?channel=<name>``, and the sweep re-sends its overdue rows. No table change is needed.
"""
from grader.notify.channel import Attempt, Channel
from grader.notify.notifier import Notifier, backoff
from grader.notify.webhooks import WebhookChannel, sign, verify

__all__ = ["Attempt", "Channel", "Notifier", "WebhookChannel", "backoff", "sign", "verify"]
