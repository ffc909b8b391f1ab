"""Grade passback end to end: a learner launched from the LMS submits through the learner page with
plain form posts (no JavaScript); the platform's score endpoint receives the scores through the
delivery log (channel ``lti-ags``), retried after a 5xx; a regrade sends the new score; the same
through a real Celery worker on Redis and PostgreSQL.

Expected scores, by hand: attention-basics has sdpa (10 points), quadratic-cost (5) and
no-positions (1), 16 in all; items left blank score 0. A correct SDPA alone: 10 / 16. Dividing by
d_k instead of sqrt(d_k) fails exactly the scaling tests, 2.0 of the sdpa categories' 10.0:
8 / 16. With the choice answered right (B, 1 point) as well: 9 / 16.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from tests.conftest import ROOT
from tests.lti.flows import launch, learner
from tests.lti.platform import ServerThread, SimulatedPlatform
from tests.web.test_browser import CORRECT, DIVIDES_BY_D_K

BIN = Path(sys.executable).parent


@pytest.fixture
def tool_config(embedded_config):
    """The embedded default with fast retries: backoff from 0.05 s, a sweep every 0.2 s (on the
    embedded default the sweep re-sends deliveries whose retry time has come)."""
    return {**embedded_config, "WEBHOOK_BACKOFF_SECONDS": 0.05, "SWEEP_INTERVAL_SECONDS": 0.2}


def wait_scores(platform, count: int, timeout: float = 60.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while len(platform.scores) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(platform.scores) >= count, (platform.scores, platform.score_attempts)
    return [s["body"] for s in platform.scores]


def settled_deliveries(store, course_id: str, count: int, timeout: float = 30.0) -> list:
    """The course's lti-ags deliveries once ``count`` of them exist and none is pending (an
    attempt is logged just after the platform answered)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = store.webhooks.list(course_id, channel="lti-ags")
        if (len(rows) >= count and all(r.status != "pending" for r in rows)) \
                or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def submit_form(browser: requests.Session, base: str, page_url: str, responses: dict) -> str:
    """Post the learner page's form as a browser without JavaScript does; returns the result
    page's HTML (the server waits for the grade before answering)."""
    page = browser.get(page_url, timeout=10)
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    nonce = re.search(r'name="form_nonce" value="([^"]+)"', page.text).group(1)
    action = re.search(r'<form id="submission-form" method="post"[^>]*? action="([^"]+)"',
                       page.text).group(1)
    data = {"csrf_token": token, "form_nonce": nonce,
            **{f"response-{item}": value for item, value in responses.items()}}
    result = browser.post(urljoin(base, action), data=data, timeout=60)
    assert result.status_code == 200, result.text
    return result.text


def test_scores_reach_the_platform_after_form_posts_and_a_regrade(tool, platform, registered,
                                                                  browser):
    base = tool[1]
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("learner-21", lineitem_id=item))
    page_url = urljoin(base, resp.headers["Location"])
    html = submit_form(browser, base, page_url, {"sdpa": CORRECT})
    assert "Score: 10 / 16" in html
    wait_scores(platform, 1)
    platform.fail_scores = 1  # the platform is down for the next score: 503, then retried
    html = submit_form(browser, base, page_url, {"sdpa": DIVIDES_BY_D_K, "no-positions": "B"})
    assert "Score: 9 / 16" in html
    first, second = wait_scores(platform, 2)
    assert {k: first[k] for k in ("userId", "scoreGiven", "scoreMaximum", "activityProgress",
                                  "gradingProgress")} == {
        "userId": "learner-21", "scoreGiven": 10.0, "scoreMaximum": 16.0,
        "activityProgress": "Completed", "gradingProgress": "FullyGraded"}
    assert (second["scoreGiven"], second["scoreMaximum"]) == (9.0, 16.0)
    assert second["comment"].startswith("Graded: 9 / 16 points")
    assert platform.score_attempts == 3  # one 503, retried
    assert len(platform.token_requests) == 1  # the token was reused
    assert platform.gradebook[(item, "learner-21")]["scoreGiven"] == 9.0
    # the delivery log shows both, in the channel lti-ags, the second after two attempts
    store = tool[0].extensions["grader"].store
    rows = settled_deliveries(store, "local", 2)
    assert sorted((r.status, r.attempts, r.last_status_code) for r in rows) == [
        ("delivered", 1, 204), ("delivered", 2, 204)]
    assert {r.url for r in rows} == {f"{platform.url}/lineitems/{item}"}

    # a regrade (nothing changed) publishes the latest submission's score again, newer
    app = tool[0]
    run = store.regrades.create("local", "attention-basics", dry_run=False)
    app.extensions["grader"].dispatcher.regrade(run.id).result(timeout=120)
    third = wait_scores(platform, 3)[2]
    assert (third["scoreGiven"], third["scoreMaximum"]) == (9.0, 16.0)
    assert third["comment"].startswith("Regraded: 9 / 16 points")
    assert third["timestamp"] > second["timestamp"]
    # the regrade keeps the submission's own time (Canvas's late flag reads it)
    canvas = "https://canvas.instructure.com/lti/submission"
    assert third[canvas] == {"submitted_at": second[canvas]["submitted_at"],
                             "new_submission": False}
    assert second[canvas]["submitted_at"] < second["timestamp"] < third["timestamp"]
    # the older submission's regrade is not sent: a score to send is a delivery row, made
    # before the regrade is done; there are three, each settled, so nothing more can be sent
    rows = settled_deliveries(store, "local", 3)
    assert sorted(r.status for r in rows) == ["delivered"] * 3
    assert len(platform.scores) == 3
    assert platform.gradebook[(item, "learner-21")] == third


def test_a_late_retry_of_an_older_score_does_not_replace_the_newer_grade(tool, platform,
                                                                         registered, browser):
    """The first score is refused until after the second one is delivered: the platform then
    gets the first one last, but its older timestamp keeps the newer grade in the gradebook."""
    base = tool[1]
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("learner-23", lineitem_id=item))
    page_url = urljoin(base, resp.headers["Location"])
    # the first score (0) is refused until the second (1) has arrived
    platform.refuse = lambda body: body.get("scoreGiven") == 0.0 and not any(
        s["body"].get("scoreGiven") == 1.0 for s in platform.scores)
    submit_form(browser, base, page_url, {"no-positions": "A"})  # 0 / 16
    submit_form(browser, base, page_url, {"no-positions": "B"})  # 1 / 16
    received = wait_scores(platform, 2)
    assert [b["scoreGiven"] for b in received] == [1.0, 0.0]  # the older one arrived last
    assert received[1]["timestamp"] < received[0]["timestamp"]
    assert platform.gradebook[(item, "learner-23")]["scoreGiven"] == 1.0


def test_a_failed_grading_is_reported_as_failed(tool, platform, registered, browser):
    item = platform.add_lineitem(score_maximum=16)
    launch(browser, platform, learner("learner-22", lineitem_id=item))
    store = tool[0].extensions["grader"].store
    submission, _ = store.create_submission("attention-basics", "learner-22",
                                            {"no-positions": {"choice": "B"}}, course_id="local")
    assert store.start(submission.id) is not None
    store.fail(submission.id, "infrastructure fault after 3 attempt(s): sandbox unavailable")
    tool[0].extensions["grader"].notifier.submission_final(submission.id)
    [body] = wait_scores(platform, 1)
    assert (body["userId"], body["gradingProgress"], body["activityProgress"]) == (
        "learner-22", "Failed", "Completed")
    assert "scoreGiven" not in body


def test_learners_without_a_launch_get_no_lti_delivery(tool, platform, registered):
    store = tool[0].extensions["grader"].store
    submission, _ = store.create_submission("attention-basics", "someone-else",
                                            {"no-positions": {"choice": "B"}}, course_id="local")
    store.start(submission.id)
    store.finish(submission.id, 1.0, 16.0, [])
    assert [d for d in tool[0].extensions["grader"].notifier.submission_final(submission.id)
            if store.webhooks.get(d).channel == "lti-ags"] == []


def _start(cmd, env, log_path):
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=open(log_path, "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.services
@pytest.mark.slow
def test_passback_through_a_celery_worker(tmp_path, redis_url, postgres_url, browser):
    """Production mode: the API enqueues, a real Celery worker grades and publishes; the platform
    answers 503 once and the worker's retry delivers."""
    from grader.app import create_app

    env = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path),
           "DATABASE_URL": postgres_url, "CELERY_BROKER_URL": redis_url,
           "CELERY_QUEUE": f"grading-lti-{uuid.uuid4().hex[:8]}",
           "GRADER_SECRET_KEY": "lti-celery-secret", "INSTANCE_PATH": str(tmp_path / "instance"),
           "WEBHOOK_BACKOFF_SECONDS": "0.2"}
    app = create_app({k: v for k, v in env.items() if k not in ("PATH", "HOME")})
    server = ServerThread(app)
    worker = _start([str(BIN / "grader"), "worker", "--concurrency", "1"], env,
                    tmp_path / "worker.log")
    # the scores go out from the deliveries' own queue and its own worker
    deliveries = _start([str(BIN / "grader"), "worker", "--deliveries", "--pool", "threads",
                         "--concurrency", "4"], env, tmp_path / "deliveries.log")
    platform = SimulatedPlatform(server.url)
    try:
        store = app.extensions["grader"].store
        store.courses.create_course("cs-lti", "LTI course")
        _row, admin = store.courses.create_key("admin", None, "t")
        _row, lms = store.courses.create_key("lms", "cs-lti", "t")
        resp = requests.post(server.url + "/api/v1/lti/platforms", timeout=10,
                             json=platform.registration(course_id="cs-lti"),
                             headers={"Authorization": f"Bearer {admin}"})
        assert resp.status_code == 201, resp.text
        item = platform.add_lineitem(score_maximum=16)
        assert launch(browser, platform, learner("learner-31", lineitem_id=item)
                      ).status_code == 303
        platform.fail_scores = 1
        resp = requests.post(server.url + "/api/v1/assignments/attention-basics/submissions",
                             json={"learner_id": "learner-31",
                                   "responses": {"sdpa": {"code": DIVIDES_BY_D_K}}},
                             headers={"Authorization": f"Bearer {lms}"}, timeout=10)
        assert resp.status_code == 202, resp.text
        [body] = wait_scores(platform, 1, timeout=120)
        assert (body["userId"], body["scoreGiven"], body["scoreMaximum"],
                body["gradingProgress"]) == ("learner-31", 8.0, 16.0, "FullyGraded")
        assert platform.score_attempts == 2  # the 503, then the retry
        [row] = settled_deliveries(store, "cs-lti", 1)
        assert (row.status, row.attempts, row.last_status_code) == ("delivered", 2, 204)
    finally:
        platform.close()
        server.close()
        _stop(worker)
        _stop(deliveries)
        app.extensions["grader"].store.dispose()
        print((tmp_path / "worker.log").read_text(errors="replace")[-3000:])
        print((tmp_path / "deliveries.log").read_text(errors="replace")[-3000:])


def test_a_replayed_score_is_sent_again_with_the_current_result(tool, platform, registered,
                                                                browser):
    base = tool[1]
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("learner-24", lineitem_id=item))
    submit_form(browser, base, urljoin(base, resp.headers["Location"]), {"no-positions": "B"})
    [first] = wait_scores(platform, 1)
    app = tool[0]
    store = app.extensions["grader"].store
    [row] = settled_deliveries(store, "local", 1)
    # the instructor replays it through the API
    from grader.bootstrap import KEY_FILE

    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    listed = requests.get(base + "/api/v1/webhooks/deliveries", params={"channel": "lti-ags"},
                          headers={"Authorization": f"Bearer {key}"}, timeout=10).json()
    assert [d["id"] for d in listed] == [row.id]
    replayed = requests.post(f"{base}/api/v1/webhooks/deliveries/{row.id}/replay",
                             headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert replayed.status_code in (200, 201, 202), replayed.text
    second = wait_scores(platform, 2)[1]
    # the same result, stored at the same moment: equal timestamps, so nothing older wins
    assert {k: second[k] for k in ("userId", "scoreGiven", "scoreMaximum", "timestamp")} == {
        k: first[k] for k in ("userId", "scoreGiven", "scoreMaximum", "timestamp")}


def test_two_links_without_line_items_get_one_each(tool, platform, registered, browser):
    """The same learner reaches one assignment from two links that came without line items: each
    link gets its own line item (created on the first send) and its own score."""
    base = tool[1]
    for link in ("link-a", "link-b"):
        resp = launch(browser, platform, learner("learner-25", resource_link_id=link))
        assert resp.status_code == 303
    submit_form(browser, base, urljoin(base, resp.headers["Location"]), {"no-positions": "B"})
    received = wait_scores(platform, 2)
    assert [b["scoreGiven"] for b in received] == [1.0, 1.0]
    assert sorted(i["resourceLinkId"] for i in platform.lineitems.values()) == ["link-a",
                                                                                 "link-b"]
    assert len({s["lineitem"] for s in platform.scores}) == 2
    rows = settled_deliveries(tool[0].extensions["grader"].store, "local", 2)
    assert sorted(r.url for r in rows) == [f"{platform.url}/lineitems#resource_link=link-a",
                                           f"{platform.url}/lineitems#resource_link=link-b"]


def _course_assignment(app, assignment_id: str, policy: str) -> None:
    """A published course copy of attention-basics with ``policy`` (through the API)."""
    from grader.bootstrap import KEY_FILE

    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    api = app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    assert api.post("/api/v1/assignments/attention-basics/copy",
                    json={"id": assignment_id, "published": True}).status_code == 201
    assert api.patch(f"/api/v1/assignments/{assignment_id}",
                     json={"attempt_policy": policy}).status_code == 200


def test_under_the_best_policy_the_gradebook_keeps_the_best_attempt(tool, platform, registered,
                                                                   browser):
    """Issue 26.2: passback counts with the assignment's attempt policy. Attempts 1 / 16 (the
    choice right), then 0 / 16: the second is not the best, so nothing is sent for it; a third
    attempt with the choice right again ties the best and is sent (the newer of equal ones)."""
    app, base = tool
    _course_assignment(app, "best-of", "best")
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("learner-31", lineitem_id=item,
                                             custom={"assignment_id": "best-of"}))
    page_url = urljoin(base, resp.headers["Location"])
    store = app.extensions["grader"].store
    submit_form(browser, base, page_url, {"no-positions": "B"})  # 1
    assert [b["scoreGiven"] for b in wait_scores(platform, 1)] == [1.0]
    submit_form(browser, base, page_url, {"no-positions": "A"})  # 0: not the best
    submit_form(browser, base, page_url, {"no-positions": "B"})  # 1 again: the best (newer)
    received = wait_scores(platform, 2)
    assert [b["scoreGiven"] for b in received] == [1.0, 1.0]
    assert "the best of 3 attempts" in received[1]["comment"]
    rows = settled_deliveries(store, "local", 2)
    assert len(rows) == 2  # the 0 was never queued for the LMS


def test_an_override_reaches_the_gradebook(tool, platform, registered, browser):
    app, base = tool
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("learner-32", lineitem_id=item))
    page_url = urljoin(base, resp.headers["Location"])
    submit_form(browser, base, page_url, {"no-positions": "A"})  # 0 / 16
    assert wait_scores(platform, 1)[0]["scoreGiven"] == 0.0
    store = app.extensions["grader"].store
    [submission] = store.submissions_of("local", "attention-basics")
    from grader.grading.overrides import record_override

    record_override(store, submission.id, "no-positions", 1.0, "both readings are fair",
                    "teacher", notifier=app.extensions["grader"].notifier)
    received = wait_scores(platform, 2)
    assert (received[1]["scoreGiven"], received[1]["gradingProgress"]) == (1.0, "FullyGraded")
    assert received[1]["comment"].startswith("Regraded: 1 / 16 points")
    assert platform.gradebook[(item, "learner-32")]["scoreGiven"] == 1.0
