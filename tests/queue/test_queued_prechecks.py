"""Prechecks through the grading queue (grader/queue/prechecks.py), on the real Redis: the API
side keeps the request and waits; the worker side takes it once, runs it on its sandbox (the
real one here) and answers. The SDPA dividing by d_k fails the one visible example with d_k != 1
(the cross-attention one, d_k = 5) and passes the two with d_k = 1: 2 of 3."""
from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from grader.queue.prechecks import (PRECHECK_TASK, PrecheckTimeout, QueuedPrechecks,
                                    answer_precheck, reply_key, request_key)
from grader.results import InfrastructureError

ROOT = Path(__file__).resolve().parents[2]
DIVIDES_BY_D_K = (ROOT / "examples" / "sdpa_divides_by_dk.py").read_text(encoding="utf-8")


@pytest.fixture
def redis_client(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def catalog(app):
    return app.extensions["grader"].catalog


def test_a_worker_answers_the_precheck_on_its_sandbox(redis_client, catalog, app):
    from grader.runtime import make_sandbox

    sandbox = make_sandbox(app.config["GRADER"])  # as a grading worker makes its own
    sent, outcomes = [], []

    def send(task, request_id, expires):  # what the Celery dispatcher does, run at once here
        sent.append((task, request_id, expires))
        worker = threading.Thread(target=lambda: outcomes.append(
            answer_precheck(redis_client, catalog, lambda: sandbox, request_id)))
        worker.start()
        return True

    try:
        items = QueuedPrechecks(redis_client, send, 20).check(
            catalog.get("local", "attention-basics"), {"sdpa": {"code": DIVIDES_BY_D_K}})
    finally:
        sandbox.close()
    assert [(t, e) for t, _, e in sent] == [(PRECHECK_TASK, 20.0)]
    assert outcomes == ["answered"]
    [sdpa] = items
    assert (sdpa["item_id"], sdpa["passed"], sdpa["total"]) == ("sdpa", 2, 3)
    assert [t["status"] for t in sdpa["tests"]] == ["failed", "passed", "passed"]
    # the request was taken (once) and the reply read: nothing left in Redis
    request_id = sent[0][1]
    assert redis_client.exists(request_key(request_id), reply_key(request_id)) == 0


def test_no_worker_in_time_is_a_timeout_and_the_request_is_dropped(redis_client, catalog):
    sent = []
    prechecks = QueuedPrechecks(redis_client, lambda t, r, e: sent.append(r) or True, 1)
    with pytest.raises(PrecheckTimeout, match="no grading worker answered within 1 s"):
        prechecks.check(catalog.get("local", "attention-basics"),
                        {"sdpa": {"code": DIVIDES_BY_D_K}})
    # a worker that takes the message later finds nothing to run
    assert answer_precheck(redis_client, catalog, lambda: None, sent[0]) == "expired"


def test_a_queue_that_cannot_be_reached_is_said(redis_client, catalog):
    prechecks = QueuedPrechecks(redis_client, lambda t, r, e: False, 5)
    with pytest.raises(InfrastructureError, match="the grading queue cannot be reached"):
        prechecks.check(catalog.get("local", "attention-basics"),
                        {"sdpa": {"code": DIVIDES_BY_D_K}})


def test_a_worker_without_the_assignment_answers_an_error(redis_client, catalog):
    import json

    request_id = uuid.uuid4().hex
    redis_client.set(request_key(request_id), json.dumps({
        "course_id": "nowhere", "assignment_id": "no-such", "version": 3, "responses": {}}),
        ex=10)
    assert answer_precheck(redis_client, catalog, lambda: None, request_id) == "failed"
    reply = json.loads(redis_client.lpop(reply_key(request_id)))
    assert reply == {"error": "assignment 'no-such' version 3 is not in this worker's "
                              "catalogue"}
