"""Handing a stored submission to whatever grades it.

Two dispatchers share one interface, ``enqueue(submission_id)``:
:class:`InlineDispatcher` (embedded default: a small thread pool in the API process that calls the
grading service; learner code still runs in the sandbox) and :class:`CeleryDispatcher` (production:
sends the id to the Celery queue on Redis, on the Celery app the app factory hands over: this
package does not import ``workers``). The message carries only the submission id. Both re-send
what a lost message or a restart left behind with the one sweep of :mod:`grader.queue.sweep`.
"""
from grader.queue.dispatch import CeleryDispatcher, InlineDispatcher, make_dispatcher
from grader.queue.sweep import IDEMPOTENCY_TTL, sweep

__all__ = ["CeleryDispatcher", "InlineDispatcher", "make_dispatcher", "sweep", "IDEMPOTENCY_TTL"]
