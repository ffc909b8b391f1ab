"""One gradebook column per link (issue 27, item 1): a resource link that came without a line item
gets exactly one, made by one sender, however many learners are graded at once and however many
processes send their scores. The race is run for real: several Python processes on one
PostgreSQL database, each sending the scores of its share of 50 learners from 10 threads, against
the simulated platform over HTTP (whose line-item POST takes 0.3 s, so that the senders overlap
while it is being made)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
import requests

from grader.app import close_app
from tests.conftest import ROOT
from tests.lti.platform import ServerThread, SimulatedPlatform

SENDER = r"""
import json, os, sys, threading, time
from pathlib import Path
from grader.config import load_config
from grader.lti.ags import build_publisher
from grader.runtime import make_catalog
from grader.store import Store

config = load_config()
store = Store(config["DATABASE_URL"])
publisher = build_publisher(config, store, make_catalog(config, store))
targets = json.loads(sys.argv[1])
go = Path(sys.argv[2])
while not go.exists():  # start together (a barrier across processes)
    time.sleep(0.01)
outcomes = {}

def send(target_id, sub):
    body = {"userId": sub, "scoreGiven": 1.0, "scoreMaximum": 16.0,
            "activityProgress": "Completed", "gradingProgress": "FullyGraded",
            "timestamp": "2026-12-02T01:00:00.000+00:00"}
    for tries in range(1, 400):  # as the delivery log does: retry what is retryable
        attempt = publisher.attempt(target_id, body)
        if attempt.delivered or not attempt.retry:
            break
        time.sleep(0.02)
    outcomes[target_id] = [attempt.delivered, tries, attempt.error]

threads = [threading.Thread(target=send, args=(t, s)) for t, s in targets]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(outcomes))
"""


@pytest.mark.services
@pytest.mark.slow
def test_fifty_learners_graded_at_once_by_five_processes_make_one_line_item(tmp_path,
                                                                            postgres_url):
    from grader.app import create_app

    env = {"DATABASE_URL": postgres_url, "CELERY_BROKER_URL": "",
           "GRADER_SECRET_KEY": "line-item-race", "INSTANCE_PATH": str(tmp_path / "instance")}
    app = create_app(dict(env))
    server = ServerThread(app)
    platform = SimulatedPlatform(server.url)
    platform.lineitem_delay = 0.3
    procs = []
    try:
        store = app.extensions["grader"].store
        _row, admin = store.courses.create_key("admin", None, "t")
        resp = requests.post(server.url + "/api/v1/lti/platforms", timeout=10,
                             json=platform.registration(),
                             headers={"Authorization": f"Bearer {admin}"})
        assert resp.status_code == 201, resp.text
        registration = resp.json()
        scopes = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                  "https://purl.imsglobal.org/spec/lti-ags/scope/score"]
        targets = [(store.lti.record_grade_target(
            platform_id=registration["id"], deployment_id=platform.deployment_id,
            resource_link_id="link-1", user_sub=f"learner-{n}", course_id="local",
            assignment_id="attention-basics", learner_id=f"learner-{n}", lineitem_url=None,
            lineitems_url=platform.url + "/lineitems", scopes=scopes).id, f"learner-{n}")
            for n in range(50)]
        go = tmp_path / "go"
        child_env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **env}
        procs = [subprocess.Popen([sys.executable, "-c", SENDER, json.dumps(targets[k::5]),
                                   str(go)], cwd=ROOT, env=child_env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for k in range(5)]
        go.write_text("go")
        outcomes = {}
        for proc in procs:
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, err[-3000:]
            outcomes.update(json.loads(out))
        assert len(outcomes) == 50
        assert all(delivered for delivered, _tries, _error in outcomes.values()), outcomes
        # one line item, asked for once; every score in it, one per learner
        assert platform.lineitem_posts == 1
        [item] = platform.lineitems.values()
        assert item["resourceLinkId"] == "link-1" and item["tag"] == "grade"
        item_id = item["id"].rsplit("/", 1)[1]
        assert {s["lineitem"] for s in platform.scores} == {item_id}
        assert sorted(s["body"]["userId"] for s in platform.scores) == sorted(
            f"learner-{n}" for n in range(50))
        assert {store.lti.grade_target(t).lineitem_url for t, _ in targets} == {item["id"]}
        print(f"line items created for 50 learners graded at once by 5 processes: "
              f"{len(platform.lineitems)}; line-item POSTs {platform.lineitem_posts}; "
              f"score posts {len(platform.scores)}; most tries of one sender "
              f"{max(t for _d, t, _e in outcomes.values())}")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        platform.close()
        server.close()
        close_app(app)
        app.extensions["grader"].store.dispose()


def test_a_claim_is_single_and_a_stale_one_is_taken_over(app):
    """The claim of a link is one caller's; a second caller is refused while the claim is fresh
    and gets it once the claim is older than the stale limit (its process died); a recorded line
    item is given to every target of the link still without one."""
    from datetime import timedelta

    from grader.store.models import utcnow

    repo = app.extensions["grader"].store.lti
    key = ("platform-x", "dep-1", "link-9", "grade")
    assert repo.claim_line_item(*key, stale_before=utcnow() - timedelta(seconds=120)) is True
    assert repo.claim_line_item(*key, stale_before=utcnow() - timedelta(seconds=120)) is False
    # a limit in the future makes the claim stale: taken over, once
    assert repo.claim_line_item(*key, stale_before=utcnow() + timedelta(seconds=1)) is True
    target = repo.record_grade_target(
        platform_id="platform-x", deployment_id="dep-1", resource_link_id="link-9",
        user_sub="u1", course_id="local", assignment_id="a", learner_id="u1", lineitem_url=None,
        lineitems_url="https://lms.example/lineitems", scopes=[])
    repo.record_line_item(*key, "https://lms.example/lineitems/7")
    assert repo.line_item(*key).lineitem_url == "https://lms.example/lineitems/7"
    assert repo.grade_target(target.id).lineitem_url == "https://lms.example/lineitems/7"
    # known now: nobody claims it again, not even with a stale limit
    assert repo.claim_line_item(*key, stale_before=utcnow() + timedelta(seconds=1)) is False
