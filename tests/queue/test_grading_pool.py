"""Issue 20 item 1: on the embedded default grading runs in grading processes, so a submission
whose trusted-side grading is slow (and holds its process's GIL) slows neither /healthz, nor the
learner page, nor GET /submissions/<id>; a grading process that dies is an infrastructure fault
of its submission, and the pool is refilled.

Ordering, not timing: the slow grading waits inside the child on an event only the test sets,
so every answer the server gives before that is provably given while the child is busy."""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from grader.app import close_app
from tests.conftest import example, wait_final
from tests.queue import grading_hooks

SUB = "/api/v1/assignments/attention-basics/submissions"


def final(client, sid: str) -> dict:
    return wait_final(lambda: client.get(f"/api/v1/submissions/{sid}?wait=30").get_json(),
                      timeout=180)


@pytest.fixture
def pool_app(embedded_config):
    """The app of the embedded default with its grading processes (one, or as asked), whose
    initializer the test sets before the first job starts them."""
    from grader.app import create_app

    made = []

    def make(initializer=None, initargs=(), **overrides):
        app = create_app({**embedded_config, "INLINE_GRADING": "processes",
                          "INLINE_WORKERS": 1, **overrides})
        pool = app.extensions["grader"].dispatcher.processes
        assert pool is not None and pool.started == 0  # nothing runs before the first job
        pool.initializer, pool.initargs = initializer, initargs
        made.append(app)
        key = (Path(app.instance_path) / "local-instructor-key").read_text().strip()
        client = app.test_client()
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
        return app, client

    yield make
    for app in made:
        close_app(app)


def test_pages_and_api_answer_while_a_grading_process_is_held_busy(pool_app, tmp_path):
    ctx = multiprocessing.get_context("forkserver")
    busy, release = ctx.Event(), ctx.Event()
    pid_file = tmp_path / "grading.pid"
    app, client = pool_app(grading_hooks.slow_trusted_side, (busy, release, str(pid_file)))
    try:
        resp = client.post(SUB, json=example("submission_text.json"))
        assert resp.status_code == 202
        sid = resp.get_json()["id"]
        assert busy.wait(60), "the grading process never started grading"
        # the child is now spinning in pure Python and cannot finish before `release` is set
        health = client.get("/healthz")
        page = client.get("/learn/attention-basics")
        status = client.get(f"/api/v1/submissions/{sid}")
        assert health.status_code == 200
        assert page.status_code == 200 and b"attention" in page.data.lower()
        assert status.status_code == 200 and status.get_json()["status"] == "running"
        assert not release.is_set()
        child = int(pid_file.read_text())
        assert child != os.getpid()
        assert app.extensions["grader"].dispatcher.processes.pids() == [child]
    finally:
        release.set()
    graded = final(client, sid)
    assert (graded["status"], graded["score"]) == ("graded", 5)


def test_a_grading_process_that_dies_is_retried_in_a_new_one(pool_app, tmp_path):
    marker = tmp_path / "died"
    app, client = pool_app(grading_hooks.die_while_grading, (str(marker),))
    sid = client.post(SUB, json=example("submission_text.json")).get_json()["id"]
    graded = final(client, sid)
    assert (graded["status"], graded["score"]) == ("graded", 5)
    pool = app.extensions["grader"].dispatcher.processes
    assert pool.started == 2  # the one that died and the one in its place
    [alive] = pool.pids()
    assert alive != int(marker.read_text())
    row = app.extensions["grader"].store.get(sid)
    assert row.attempts == 2


def test_a_submission_that_kills_every_grading_process_fails_as_an_infrastructure_fault(
        pool_app, tmp_path):
    counter = tmp_path / "deaths"
    app, client = pool_app(grading_hooks.always_die, (str(counter),), MAX_GRADING_ATTEMPTS=2)
    sid = client.post(SUB, json=example("submission_text.json")).get_json()["id"]
    failed = final(client, sid)
    assert failed["status"] == "failed" and failed["score"] is None
    row = app.extensions["grader"].store.get(sid)
    assert row.failure_reason == ("infrastructure fault after 2 attempt(s): the grading process "
                                  "was killed by signal 9")
    assert len(counter.read_text().splitlines()) == 2
    pool = app.extensions["grader"].dispatcher.processes
    assert pool.started == 3  # two died, the third waits for the next submission
    assert len(pool.pids()) == 1


def test_the_pool_answers_jobs_and_kills_a_hung_child_when_closed():
    from grader.queue.grading_pool import GradingPool, GradingProcessDied

    seen = []
    hanging = __import__("threading").Event()

    def on_event(kind, ident):
        seen.append((kind, ident))
        hanging.set()

    pool = GradingPool(grading_hooks.echo_main, {}, processes=1, on_event=on_event)
    assert pool.submit("grade", "abc").result(120) == "cba"
    stuck = pool.submit("grade", "hang")
    assert hanging.wait(120) and seen == [("final", "hanging")]
    pool.close(timeout=0.5)
    with pytest.raises(GradingProcessDied, match="killed by signal 9"):
        stuck.result(30)
    assert pool.pids() == [] and pool.started == 1  # no refill once closed
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit("grade", "late").result(1)


def test_a_grading_process_does_not_migrate_the_store_again(pool_app, tmp_path):
    # the serving process migrated it in create_app; a child that migrated again logged
    # Alembic's INFO lines ("setup plugin ...", "Context impl SQLiteImpl.", ...) each time
    logs = tmp_path / "child.log"
    _, client = pool_app(grading_hooks.record_logs, (str(logs),))
    sid = client.post(SUB, json=example("submission_text.json")).get_json()["id"]
    graded = final(client, sid)
    assert (graded["status"], graded["score"]) == ("graded", 5)
    lines = logs.read_text().splitlines()
    assert lines[0] == "grader.test: INFO recording the grading process's logs"
    assert [line for line in lines if line.startswith("alembic")] == []
