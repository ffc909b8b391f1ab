"""Editing a platform registration (issue 27, item 2): deployments added and retired, keys moved,
without losing grade targets; a score that cannot be passed back (its deployment retired) is
logged with the reason and sent once the deployment is registered again.

Expected by hand: attention-basics is 16 points; the choice no-positions right (B) is 1, wrong
(A) is 0, every other item is left blank (0)."""
from __future__ import annotations

import time
from pathlib import Path

import requests

from tests.lti.flows import launch, learner
from tests.lti.test_passback import wait_scores


def _instructor_key(app) -> str:
    from grader.bootstrap import KEY_FILE

    return (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()


def _grade(base: str, key: str, learner_id: str, choice: str) -> str:
    resp = requests.post(base + "/api/v1/assignments/attention-basics/submissions",
                         json={"learner_id": learner_id,
                               "responses": {"no-positions": {"choice": choice}}},
                         headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert resp.status_code == 202, resp.text
    got = requests.get(f"{base}/api/v1/submissions/{resp.json()['id']}", params={"wait": 30},
                       headers={"Authorization": f"Bearer {key}"}, timeout=40).json()
    assert got["status"] == "graded"
    return got["id"]


def _patch(base, platform_id, headers, body):
    return requests.patch(f"{base}/api/v1/lti/platforms/{platform_id}", json=body,
                          headers={**headers, "Content-Type": "application/merge-patch+json"},
                          timeout=10)


def _held(store, submission_id: str, timeout: float = 30.0):
    """The lti-ags delivery of ``submission_id`` once an attempt has been logged."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = [r for r in store.webhooks.list("local", channel="lti-ags")
                if r.submission_id == submission_id and r.attempts >= 1]
        if rows:
            return rows[0]
        time.sleep(0.05)
    raise AssertionError("no attempt logged")


def test_deployments_added_and_retired_keep_the_grade_targets(tool, platform, registered,
                                                              admin_headers, browser):
    app, base = tool
    store = app.extensions["grader"].store
    key = _instructor_key(app)
    item = platform.add_lineitem(score_maximum=16)
    assert launch(browser, platform, learner("learner-51", lineitem_id=item)).status_code == 303
    _grade(base, key, "learner-51", "B")
    assert wait_scores(platform, 1)[0]["scoreGiven"] == 1.0

    # the platform adds a deployment and moves its keys: one PATCH, the registration stays
    platform.rotate_key()
    platform.old_keys.clear()  # the old key is gone from the platform's key set
    resp = _patch(base, registered["id"], admin_headers, {
        "deployment_ids": ["deployment-1", "deployment-2"],
        "key_set_url": platform.url + "/jwks?rotated=1"})
    assert resp.status_code == 200, resp.text
    assert (resp.json()["id"], resp.json()["deployment_ids"], resp.json()["key_set_url"]) == (
        registered["id"], ["deployment-1", "deployment-2"], platform.url + "/jwks?rotated=1")
    platform.deployment_id = "deployment-2"
    assert launch(browser, platform, learner("learner-52")).status_code == 303  # new deployment
    # learner-51 does not launch again: graded, and the score goes to the same line item
    _grade(base, key, "learner-51", "A")
    assert wait_scores(platform, 2)[1]["scoreGiven"] == 0.0
    assert platform.scores[1]["lineitem"] == item

    # deployment-1 retired: the score cannot be sent; the delivery log says why
    assert _patch(base, registered["id"], admin_headers,
                  {"deployment_ids": ["deployment-2"]}).status_code == 200
    third = _grade(base, key, "learner-51", "B")
    held = _held(store, third)
    assert held.status in ("pending", "failed") and held.last_error.startswith(
        "deployment 'deployment-1' is not (or no longer) registered for platform")
    assert len(platform.scores) == 2
    assert len(store.lti.grade_targets("local", "attention-basics", "learner-51")) == 1
    # added back: the waiting score is sent without the learner launching
    assert _patch(base, registered["id"], admin_headers,
                  {"deployment_ids": ["deployment-2", "deployment-1"]}).status_code == 200
    last = wait_scores(platform, 3)[2]
    assert (last["userId"], last["scoreGiven"]) == ("learner-51", 1.0)
    assert platform.gradebook[(item, "learner-51")]["scoreGiven"] == 1.0
    print(f"scores delivered after adding a deployment (and back): {len(platform.scores)} of 3")


def test_put_replaces_and_refuses_what_cannot_change(tool, platform, registered,
                                                     admin_headers):
    base = tool[1]
    url = f"{base}/api/v1/lti/platforms/{registered['id']}"
    body = platform.registration(label="Canvas (test)", deployment_ids=["deployment-1", "d-9"])
    resp = requests.put(url, json=body, headers=admin_headers, timeout=10)
    assert resp.status_code == 200, resp.text
    assert (resp.json()["label"], resp.json()["deployment_ids"]) == (
        "Canvas (test)", ["deployment-1", "d-9"])
    moved = requests.put(url, json={**body, "learner_prefix": "canvas:"}, headers=admin_headers,
                         timeout=10)
    assert (moved.status_code, moved.json()["code"],
            moved.json()["field"]) == (409, "immutable", "learner_prefix")
    removed = _patch(base, registered["id"], admin_headers, {"key_set_url": None})
    assert (removed.status_code, removed.json()["field"]) == (422, "key_set_url")
    missing = _patch(base, "no-such-platform", admin_headers, {"label": "x"})
    assert (missing.status_code, missing.json()["code"]) == (404, "platform_not_found")
    assert requests.get(url, headers=admin_headers, timeout=10).json()["label"] == "Canvas (test)"
