"""Issue 25 in production mode: the API process has no sandbox, so an upload is stored as
``pending`` and its trial queued on the broker for a worker; the trial run (what
``workers.tasks.problem_trial`` calls) stores the report, the visible values and the version's
status; only a passed version is usable by code items.

The app is in production mode on the real Redis and PostgreSQL, with a queue of its own that no
worker consumes, so each test decides when the queued trial runs (here, in the real sandbox).
The same path with a real Celery worker: tests/e2e/test_production_problems.py."""
from __future__ import annotations

import base64
import json
import uuid
from functools import partial
from pathlib import Path

import pytest
import yaml

from grader.grading.problem_trials import run_problem_trial
from grader.runtime import make_sandbox

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "problems"
COSINE = (EXAMPLES / "cosine_attention.yaml").read_text()
YAML = {"Content-Type": "application/yaml"}
BROKEN = ("def cosine_attention(Q, K, V, tau):\n"
          "    return Q @ K.T\n")  # wrong on the 3-D cases, crashes on the inputs case


@pytest.fixture
def production(tmp_path, redis_url, postgres_url):
    """(app, instructor client, Redis client, queue name): production mode, nobody consuming."""
    import redis

    from grader.app import create_app

    queue = f"trials-test-{uuid.uuid4().hex[:8]}"
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"), "DATABASE_URL": postgres_url,
                      "CELERY_BROKER_URL": redis_url, "CELERY_QUEUE": queue,
                      "GRADER_SECRET_KEY": "test-secret", "SWEEP_INTERVAL_SECONDS": 3600})
    store = app.extensions["grader"].store
    store.courses.create_course("cs", "CS")
    _row, key = store.courses.create_key("instructor", "cs")
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    broker = redis.Redis.from_url(redis_url)
    yield app, client, broker, queue
    broker.delete(queue)


def run_queued(app, trial_id):
    """What the worker's task does with the queued id, in the real sandbox."""
    config = app.config["GRADER"]
    return run_problem_trial(app.extensions["grader"].store, partial(make_sandbox, config),
                             trial_id)


def queued_trials(broker, queue) -> list[str]:
    """The trial ids of the problem_trial messages waiting on ``queue``."""
    ids = []
    for raw in broker.lrange(queue, 0, -1):
        message = json.loads(raw)
        assert message["headers"]["task"] == "workers.tasks.problem_trial"
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        ids.append(args[0])
    return ids


def pinned(app, assignment) -> str:
    record = app.extensions["grader"].store.content.assignment("cs", assignment)
    return record.document["items"][0]["problem"]


def make_assignment(client, ref, assignment="hw-cos"):
    return client.post("/api/v1/assignments", json={
        "id": assignment, "title": "Cosine attention", "published": True,
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": ref}]})


def test_upload_is_pending_until_the_queued_trial_passes(production):
    app, client, broker, queue = production
    resp = client.post("/api/v1/problems", data=COSINE, headers=YAML)
    assert resp.status_code == 202, resp.get_json()
    body = resp.get_json()
    assert (body["id"], body["version"], body["status"], body["trial"]) == (
        "cosine-attention", 1, "pending", None)
    location = resp.headers["Location"]
    assert location == f"/api/v1/problems/cosine-attention/trials/{body['trial_id']}"
    assert queued_trials(broker, queue) == [body["trial_id"]]

    run = client.get(location).get_json()
    assert (run["status"], run["report"], run["problem_status"], run["attempts"]) == (
        "queued", None, "pending", 0)
    assert client.get("/api/v1/problems/cosine-attention").get_json()["status"] == "pending"
    refused = make_assignment(client, "cosine-attention")
    assert refused.status_code == 422
    assert refused.get_json()["field"] == "items[0].problem"
    assert "until its trial passes (version 1 is pending)" in refused.get_json()["message"]

    assert run_queued(app, body["trial_id"]) == "done"
    assert run_queued(app, body["trial_id"]) is None  # redelivered: nothing runs twice
    run = client.get(location).get_json()
    assert (run["status"], run["problem_status"], run["error"]) == ("done", "passed", None)
    assert run["attempts"] == 1  # one start: the redelivery found it final and did not start
    report = run["report"]
    assert report["refused"] is None and report["reference"]["full"] is True
    assert [m["named"] for m in report["mistakes"]] == [True, True, True]
    assert report["mutants_caught"]["caught"] == report["mutants_caught"]["of"] > 10

    stored = client.get("/api/v1/problems/cosine-attention").get_json()
    assert stored["status"] == "passed" and stored["trial"] == report
    listing = client.get("/api/v1/problems").get_json()
    assert listing[0]["versions"][0]["status"] == "passed"
    made = make_assignment(client, "cosine-attention")
    assert made.status_code == 201, made.get_json()
    view = client.get("/api/v1/assignments/hw-cos").get_json()["items"][0]
    assert len(view["visible_tests"]) == 2  # the values the worker's sandbox computed


def test_a_refused_upload_cannot_be_used_and_a_passed_version_can(production):
    app, client, broker, queue = production
    doc = yaml.safe_load(COSINE)
    doc["reference"] = BROKEN
    first = client.post("/api/v1/problems", json=doc)
    assert first.status_code == 202
    assert run_queued(app, first.get_json()["trial_id"]) == "done"
    run = client.get(first.headers["Location"]).get_json()
    assert run["problem_status"] == "refused" and "the reference" in run["report"]["refused"]
    assert client.get("/api/v1/problems/cosine-attention").get_json()["status"] == "refused"
    resp = make_assignment(client, "cosine-attention")
    assert resp.status_code == 422 and "version 1 is refused" in resp.get_json()["message"]

    second = client.put("/api/v1/problems/cosine-attention", data=COSINE, headers=YAML)
    assert second.status_code == 202 and second.get_json()["version"] == 2
    assert run_queued(app, second.get_json()["trial_id"]) == "done"
    assert make_assignment(client, "cosine-attention@1").status_code == 422
    made = make_assignment(client, "cosine-attention", "hw-cos-2")
    assert made.status_code == 201
    assert pinned(app, "hw-cos-2") == "cosine-attention@2"


def test_a_pending_version_leaves_the_newest_passed_one_usable(production):
    app, client, _broker, _queue = production
    first = client.post("/api/v1/problems", data=COSINE, headers=YAML)
    run_queued(app, first.get_json()["trial_id"])
    doc = yaml.safe_load(COSINE)
    doc["title"] = "Cosine attention (v2)"
    assert client.put("/api/v1/problems/cosine-attention", json=doc).get_json()["status"] \
        == "pending"
    made = make_assignment(client, "cosine-attention")
    assert made.status_code == 201
    assert pinned(app, "hw-cos") == "cosine-attention@1"


def test_trial_endpoint_is_queued_and_leaves_a_passed_version_as_it_is(production):
    app, client, broker, queue = production
    first = client.post("/api/v1/problems", data=COSINE, headers=YAML)
    run_queued(app, first.get_json()["trial_id"])
    resp = client.post("/api/v1/problems/cosine-attention/trial", json={"mutants": False})
    assert resp.status_code == 202
    run = resp.get_json()
    assert (run["status"], run["version"], run["mutants"]) == ("queued", 1, False)
    assert "problem_status" not in run  # it does not decide the version
    assert set(queued_trials(broker, queue)) == {first.get_json()["trial_id"], run["id"]}
    assert run_queued(app, run["id"]) == "done"
    done = client.get(resp.headers["Location"], query_string={"wait": 5}).get_json()
    assert done["status"] == "done" and done["report"]["reference"]["full"] is True
    assert "mutants" not in done["report"]
    assert client.get("/api/v1/problems/cosine-attention").get_json()["status"] == "passed"


def test_unknown_trial_is_404(production):
    _app, client, _broker, _queue = production
    resp = client.get("/api/v1/problems/cosine-attention/trials/nope")
    assert resp.status_code == 404 and resp.get_json()["code"] == "trial_not_found"


def test_a_trial_without_a_sandbox_fails_with_the_reason_and_can_run_again(production):
    from grader.sandbox import SandboxUnavailable

    app, client, _broker, _queue = production
    first = client.post("/api/v1/problems", data=COSINE, headers=YAML).get_json()

    def no_sandbox():
        raise SandboxUnavailable("bubblewrap missing")

    store = app.extensions["grader"].store
    assert run_problem_trial(store, no_sandbox, first["trial_id"]) == "failed"
    run = client.get(f"/api/v1/problems/cosine-attention/trials/{first['trial_id']}").get_json()
    assert run["status"] == "failed" and run["problem_status"] == "failed"
    assert run["error"] == "sandbox_unavailable: bubblewrap missing"
    again = client.post("/api/v1/problems/cosine-attention/trial", json={}).get_json()
    assert run_queued(app, again["id"]) == "done"
    assert client.get("/api/v1/problems/cosine-attention").get_json()["status"] == "passed"


def test_the_sweep_resends_a_trial_whose_message_was_lost_once_per_claim(production):
    from datetime import timedelta

    from sqlalchemy import update

    from grader.store.models import ProblemTrialRun, utcnow

    app, client, _broker, _queue = production
    trial_id = client.post("/api/v1/problems", data=COSINE, headers=YAML).get_json()["trial_id"]
    trials = app.extensions["grader"].store.problem_trials
    assert trials.resend_stale(timedelta(seconds=300)) == []  # just sent
    with app.extensions["grader"].store.sessions.begin() as session:
        session.execute(update(ProblemTrialRun).where(ProblemTrialRun.id == trial_id).values(
            sent_at=utcnow() - timedelta(seconds=301)))
    assert trials.resend_stale(timedelta(seconds=300)) == [trial_id]
    assert trials.resend_stale(timedelta(seconds=300)) == []  # claimed: sent again once
    assert run_queued(app, trial_id) == "done"
    with app.extensions["grader"].store.sessions.begin() as session:
        session.execute(update(ProblemTrialRun).where(ProblemTrialRun.id == trial_id).values(
            sent_at=utcnow() - timedelta(seconds=301)))
    assert trials.resend_stale(timedelta(seconds=300)) == []  # done: never sent again
