"""Prechecks through the grading queue (production mode, where the API process has no sandbox
and its container may lack bubblewrap): the same sandbox path as grading, answered at once.

The API process keeps the request (assignment, version, responses) in Redis under a random id
for at most ``PRECHECK_WAIT_SECONDS``, sends ``workers.tasks.precheck(request_id)`` to the
grading queue (the task carries the id, not the code, and expires with the request), and waits
on the request's reply list (``BLPOP``) for at most that long. A grading worker takes the request
(``GET`` then ``DEL``: it runs once), runs the visible examples on its own warm sandbox
(:func:`grader.grading.prechecks.check_items`, as the embedded default does in its API
process) and pushes the answer. Nothing is stored in the database; both keys expire. No hidden
test runs, so nothing secret crosses Redis.

A precheck waits behind the submissions queued before it: when no worker answers in time the
API answers 503 ``precheck_timeout`` (with ``Retry-After``) and the request expires unrun.
"""
from __future__ import annotations

import json
import logging
import uuid
from typing import Any, Callable

from grader.results import InfrastructureError

log = logging.getLogger(__name__)

PRECHECK_TASK = "workers.tasks.precheck"
_PREFIX = "grader:precheck:"


class PrecheckTimeout(InfrastructureError):
    """No grading worker answered the precheck within ``seconds``."""

    def __init__(self, seconds: float):
        super().__init__(f"no grading worker answered within {seconds:g} s (the queue is busy)")
        self.seconds = seconds


def request_key(request_id: str) -> str:
    return f"{_PREFIX}{request_id}:request"


def reply_key(request_id: str) -> str:
    return f"{_PREFIX}{request_id}:reply"


class QueuedPrechecks:
    """Prechecks sent to a grading worker (see the module docstring). ``redis`` is a
    ``redis.Redis`` on the broker; ``send(task_name, request_id, expires)`` queues the task;
    ``wait_seconds`` bounds the wait (``PRECHECK_WAIT_SECONDS``)."""

    def __init__(self, redis, send: Callable[[str, str, float], Any], wait_seconds: float):
        self.redis = redis
        self.send = send
        self.wait_seconds = max(1.0, float(wait_seconds))

    def check(self, assignment, responses: dict[str, dict]) -> list[dict[str, Any]]:
        """The items' precheck results (as :func:`grader.grading.prechecks.check_items`), from a
        worker. Raises :class:`PrecheckTimeout` when none answers in time and
        :class:`InfrastructureError` when the worker could not run it."""
        request_id = uuid.uuid4().hex
        expires = int(self.wait_seconds) + 1
        body = {"course_id": assignment.course_id, "assignment_id": assignment.id,
                "version": assignment.version, "responses": responses}
        self.redis.set(request_key(request_id), json.dumps(body), ex=expires)
        if not self.send(PRECHECK_TASK, request_id, self.wait_seconds):
            self.redis.delete(request_key(request_id))
            raise InfrastructureError("the grading queue cannot be reached")
        found = self.redis.blpop([reply_key(request_id)], timeout=expires)
        if found is None:
            self.redis.delete(request_key(request_id))  # a worker reaching it later: not run
            raise PrecheckTimeout(self.wait_seconds)
        answer = json.loads(found[1])
        if "error" in answer:
            raise InfrastructureError(str(answer["error"]))
        return answer["items"]


def answer_precheck(redis, catalog, sandbox_of: Callable[[], Any], request_id: str) -> str:
    """A grading worker's side: take the request ``request_id`` (once), run it on
    ``sandbox_of()``, push the answer to its reply list (kept 60 s). Returns ``"answered"``,
    ``"failed"`` (an infrastructure fault, said in the answer) or ``"expired"`` (the API
    stopped waiting; nothing ran)."""
    from grader.grading.prechecks import check_items
    from grader.sandbox import SandboxUnavailable

    with redis.pipeline() as pipe:  # GET and DEL at once: a redelivered task finds nothing
        raw, _ = pipe.get(request_key(request_id)).delete(request_key(request_id)).execute()
    if raw is None:
        return "expired"
    body = json.loads(raw)
    outcome = "answered"
    try:
        assignment = catalog.get(body["course_id"], body["assignment_id"], body["version"])
        if assignment is None:
            raise InfrastructureError(f"assignment {body['assignment_id']!r} version "
                                      f"{body['version']} is not in this worker's catalogue")
        answer: dict[str, Any] = {"items": check_items(assignment, body["responses"],
                                                       sandbox_of)}
    except (InfrastructureError, SandboxUnavailable) as exc:
        log.warning("precheck %s could not run: %s", request_id, exc)
        answer, outcome = {"error": str(exc)}, "failed"
    with redis.pipeline() as pipe:
        pipe.rpush(reply_key(request_id), json.dumps(answer)).expire(reply_key(request_id), 60)
        pipe.execute()
    return outcome
