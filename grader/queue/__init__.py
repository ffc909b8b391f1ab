"""Handing a stored submission to whatever grades it.

Two dispatchers share one interface, ``enqueue(submission_id)``:
:class:`InlineDispatcher` (embedded default: a small pool of grading processes,
:mod:`grader.queue.grading_pool`, so grading never runs in the process or under the GIL that
serves pages and the API; learner code still runs in the sandbox; deliveries on their own pool
with a bound per host, :mod:`grader.queue.delivery_pool`) and :class:`CeleryDispatcher` (production:
sends the id to the Celery queue on Redis, on the Celery app the app factory hands over: this
package does not import ``workers``). The message carries only the submission id. Both re-send
what a lost message or a restart left behind with the one sweep of :mod:`grader.queue.sweep`.
"""
from grader.queue.dispatch import CeleryDispatcher, InlineDispatcher, make_dispatcher
from grader.queue.sweep import IDEMPOTENCY_TTL, sweep

__all__ = ["CeleryDispatcher", "InlineDispatcher", "make_dispatcher", "sweep", "IDEMPOTENCY_TTL"]
