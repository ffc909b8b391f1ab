"""Handing a stored submission to whatever grades it.

Two dispatchers share one interface, ``enqueue(submission_id)``:
:class:`InlineDispatcher` (embedded default: a small thread pool in the API process that calls the
grading service; learner code still runs in the sandbox) and :class:`CeleryDispatcher` (production:
sends the id to the Celery queue on Redis). The message carries only the submission id.
"""
from grader.queue.dispatch import CeleryDispatcher, InlineDispatcher, make_dispatcher

__all__ = ["CeleryDispatcher", "InlineDispatcher", "make_dispatcher"]
