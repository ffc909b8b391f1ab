"""Assignment and Grade Services: score bodies, access tokens (client-credentials JWT grant,
cached), line items and publishing attempts against the simulated platform."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from types import SimpleNamespace

import jwt
import pytest

from grader.lti.ags import build_publisher, score_body, scores_url
from tests.lti.flows import launch, learner

SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
MOMENT = datetime(2026, 11, 30, 13, 21, 23, 56000, tzinfo=timezone.utc)


def submission(score=8.0, max_score=16.0, sid="abcdef12-0000-0000-0000-000000000000"):
    return SimpleNamespace(id=sid, score=score, max_score=max_score)


def test_graded_score_body():
    body = score_body(submission(), "user-1", "graded", MOMENT)
    assert body == {"userId": "user-1", "scoreGiven": 8.0, "scoreMaximum": 16.0,
                    "activityProgress": "Completed", "gradingProgress": "FullyGraded",
                    "timestamp": "2026-11-30T13:21:23.056+00:00",
                    "comment": "Graded: 8 / 16 points (submission abcdef12)."}
    regraded = score_body(submission(score=12.5), "user-1", "regraded", MOMENT)
    assert (regraded["scoreGiven"], regraded["comment"]) == (
        12.5, "Regraded: 12.5 / 16 points (submission abcdef12).")


def test_failed_grading_reports_failed_without_a_score():
    body = score_body(submission(score=None, max_score=None), "user-1", "failed", MOMENT)
    assert body["gradingProgress"] == "Failed" and body["activityProgress"] == "Completed"
    assert "scoreGiven" not in body and "scoreMaximum" not in body
    assert "not a zero" in body["comment"]


def test_scores_url_keeps_the_query():
    assert scores_url("https://lms.example/li/5") == "https://lms.example/li/5/scores"
    assert scores_url("https://m.example/mod/lti/services.php/2/lineitems/5/lineitem?type_id=1") \
        == "https://m.example/mod/lti/services.php/2/lineitems/5/lineitem/scores?type_id=1"


@pytest.fixture
def target(tool, platform, registered, browser):
    """A learner launched from a link with a line item; returns (target row, line item id)."""
    item = platform.add_lineitem()
    assert launch(browser, platform, learner("learner-7", lineitem_id=item)).status_code == 303
    store = tool[0].extensions["grader"].store
    [row] = store.lti.grade_targets("local", "attention-basics", "learner-7")
    return row, item


@pytest.fixture
def publisher(tool):
    app = tool[0]
    grader = app.extensions["grader"]
    return build_publisher(grader.config, grader.store, grader.catalog)


def test_publishing_posts_the_score_with_a_cached_token(tool, platform, target, publisher):
    row, item = target
    body = score_body(submission(), "learner-7", "graded", MOMENT)
    attempt = publisher.attempt(row.id, body)
    assert (attempt.delivered, attempt.status_code) == (True, 204)
    [received] = platform.scores
    assert received["lineitem"] == item and received["body"] == body
    # the token came from a client-credentials grant with a JWT assertion signed by the tool
    [grant] = platform.token_requests
    assert grant["grant_type"] == "client_credentials"
    assert grant["scope"] == f"{LINEITEM} {SCORE}"
    assertion = jwt.decode(grant["client_assertion"], options={"verify_signature": False})
    assert (assertion["iss"], assertion["sub"], assertion["aud"]) == (
        platform.client_id, platform.client_id, platform.url + "/token")
    assert assertion["jti"] and assertion["exp"] - assertion["iat"] == 300
    # a second score reuses the cached token: no new grant
    assert publisher.attempt(row.id, {**body, "scoreGiven": 9.0}).delivered
    assert len(platform.token_requests) == 1
    assert platform.scores[1]["authorization"] == platform.scores[0]["authorization"]
    # another process (a new publisher over the same store) reuses it too
    grader = tool[0].extensions["grader"]
    other = build_publisher(grader.config, grader.store, grader.catalog)
    assert other.attempt(row.id, body).delivered and len(platform.token_requests) == 1


def test_an_expiring_token_is_renewed(tool, platform, target, publisher):
    row, _ = target
    platform.token_lifetime = 30  # less than the 60 s margin: never reused
    body = score_body(submission(), "learner-7", "graded", MOMENT)
    assert publisher.attempt(row.id, body).delivered
    assert publisher.attempt(row.id, body).delivered
    assert len(platform.token_requests) == 2


def test_a_revoked_token_is_replaced_at_once(tool, platform, target, publisher):
    row, _ = target
    body = score_body(submission(), "learner-7", "graded", MOMENT)
    assert publisher.attempt(row.id, body).delivered
    platform.access_tokens.clear()  # the platform forgets its tokens: 401
    attempt = publisher.attempt(row.id, body)
    assert attempt.delivered and len(platform.token_requests) == 2 and len(platform.scores) == 2


def test_server_errors_are_retryable_and_refusals_are_not(tool, platform, target, publisher):
    row, _ = target
    body = score_body(submission(), "learner-7", "graded", MOMENT)
    platform.fail_scores = 1
    attempt = publisher.attempt(row.id, body)
    assert (attempt.delivered, attempt.status_code, attempt.retry) == (False, 503, True)
    assert publisher.attempt(row.id, body).delivered
    platform.lineitems.clear()  # the line item was deleted in the LMS: 404, give up
    attempt = publisher.attempt(row.id, body)
    assert (attempt.delivered, attempt.status_code, attempt.retry) == (False, 404, False)


def test_unreachable_platform_is_retryable(tool, platform, target, publisher):
    row, _ = target
    store = tool[0].extensions["grader"].store
    store.lti.set_lineitem(row.id, "http://127.0.0.1:9/lineitems/x")  # nothing listens there
    attempt = publisher.attempt(row.id, score_body(submission(), "learner-7", "graded", MOMENT))
    assert (attempt.delivered, attempt.status_code, attempt.retry) == (False, None, True)
    assert "ConnectionError" in attempt.error


def test_a_link_without_line_item_gets_one(tool, platform, registered, browser, publisher):
    assert launch(browser, platform, learner("learner-8")).status_code == 303  # no lineitem
    store = tool[0].extensions["grader"].store
    [row] = store.lti.grade_targets("local", "attention-basics", "learner-8")
    assert (row.lineitem_url, row.lineitems_url) == (None, platform.url + "/lineitems")
    body = score_body(submission(), "learner-8", "graded", MOMENT)
    assert publisher.attempt(row.id, body).delivered
    [item] = platform.lineitems.values()
    # attention-basics is worth 10 + 5 + 1 = 16 points
    assert (item["scoreMaximum"], item["resourceId"], item["resourceLinkId"], item["tag"]) == (
        16.0, "attention-basics", "link-1", "grade")
    assert item["label"] == "Self-attention basics"
    assert store.lti.grade_target(row.id).lineitem_url == item["id"]
    # a second learner of the same link finds that line item instead of making another
    assert launch(browser, platform, learner("learner-9")).status_code == 303
    [row9] = store.lti.grade_targets("local", "attention-basics", "learner-9")
    assert publisher.attempt(row9.id, score_body(submission(), "learner-9", "graded",
                                                 MOMENT)).delivered
    assert len(platform.lineitems) == 1
    assert [s["lineitem"] for s in platform.scores] == [item["id"].rsplit("/", 1)[1]] * 2


def test_no_target_without_the_score_scope(tool, platform, registered, browser):
    assert launch(browser, platform, learner("learner-5", ags_scopes=[
        "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"])).status_code == 303
    assert tool[0].extensions["grader"].store.lti.grade_targets(
        "local", "attention-basics", "learner-5") == []


def test_timestamps_have_milliseconds_and_utc():
    body = score_body(submission(), "u", "graded", datetime.now(timezone.utc))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", body["timestamp"])


def test_the_score_carries_the_submission_time_beside_the_scoring_time():
    """An on-time submission (received 12:00) regraded after the due date (13:21): the AGS
    timestamp is the regrade's, Canvas's submitted_at the submission's, and a regrade is not a
    new submission."""
    received = datetime(2026, 11, 30, 12, 0, 0, 250000, tzinfo=timezone.utc)
    row = SimpleNamespace(id="abcdef12-0000-0000-0000-000000000000", score=8.0, max_score=16.0,
                          received_at=received)
    regraded = score_body(row, "user-1", "regraded", MOMENT)
    assert regraded["timestamp"] == "2026-11-30T13:21:23.056+00:00"
    assert regraded["https://canvas.instructure.com/lti/submission"] == {
        "submitted_at": "2026-11-30T12:00:00.250+00:00", "new_submission": False}
    graded = score_body(row, "user-1", "graded", received)
    assert graded["https://canvas.instructure.com/lti/submission"] == {
        "submitted_at": "2026-11-30T12:00:00.250+00:00", "new_submission": True}
