"""Scores that wait for their grade target (issue 27, item 3): a learner graded through the REST
API before ever launching from the LMS gets the grade sent when the first launch records where it
goes; a later launch sends nothing again (its target is known: new gradings send).

Expected by hand: attention-basics is 16 points; the right choice alone (no-positions: B) is 1."""
from __future__ import annotations

import requests

from tests.lti.flows import launch, learner
from tests.lti.test_passback import settled_deliveries, wait_scores


def _grade_through_the_api(app, base: str, instructor_key: str, learner_id: str) -> dict:
    headers = {"Authorization": f"Bearer {instructor_key}"}
    resp = requests.post(base + "/api/v1/assignments/attention-basics/submissions",
                         json={"learner_id": learner_id,
                               "responses": {"no-positions": {"choice": "B"}}},
                         headers=headers, timeout=10)
    assert resp.status_code == 202, resp.text
    graded = requests.get(f"{base}/api/v1/submissions/{resp.json()['id']}",
                          params={"wait": 30}, headers=headers, timeout=40).json()
    assert (graded["status"], graded["score"]) == ("graded", 1.0)
    return graded


def test_a_learner_graded_before_the_first_launch_gets_the_score_at_that_launch(
        tool, platform, registered, browser):
    from pathlib import Path

    from grader.bootstrap import KEY_FILE

    app, base = tool
    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    graded = _grade_through_the_api(app, base, key, "learner-41")
    store = app.extensions["grader"].store
    assert store.webhooks.list("local", channel="lti-ags") == []  # nowhere to send yet
    item = platform.add_lineitem(score_maximum=16)
    assert launch(browser, platform, learner("learner-41", lineitem_id=item)).status_code == 303
    [body] = wait_scores(platform, 1)
    assert (body["userId"], body["scoreGiven"], body["scoreMaximum"], body["gradingProgress"]) \
        == ("learner-41", 1.0, 16.0, "FullyGraded")
    assert body["comment"].startswith(f"Graded: 1 / 16 points (submission {graded['id'][:8]})")
    [row] = settled_deliveries(store, "local", 1)
    assert (row.status, row.submission_id, row.url) == (
        "delivered", graded["id"], f"{platform.url}/lineitems/{item}")
    # launching again: the target is known, nothing is sent again
    assert launch(browser, platform, learner("learner-41", lineitem_id=item)).status_code == 303
    assert len(store.webhooks.list("local", channel="lti-ags")) == 1
    print(f"scores delivered after a first launch: {len(platform.scores)} of 1")


def test_a_first_launch_without_any_grade_sends_nothing(tool, platform, registered, browser):
    store = tool[0].extensions["grader"].store
    assert launch(browser, platform, learner("learner-42")).status_code == 303
    assert len(store.lti.grade_targets("local", "attention-basics", "learner-42")) == 1
    assert store.webhooks.list("local", channel="lti-ags") == []
