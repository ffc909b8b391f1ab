"""Signed webhooks to a real local HTTP receiver: signature, retry until a 2xx, log, replay."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from grader.app import close_app
from grader.notify.webhooks import sign, verify

SUB = "/api/v1/assignments/attention-basics/submissions"


class Receiver:
    """A local HTTP server that answers 500 to the first ``failures`` requests, then 200. While
    ``gate`` is an unset ``threading.Event``, it records each request and answers only once the
    gate is set: a delivery then stays ``pending`` for as long as the test needs."""

    def __init__(self, failures: int):
        self.failures = failures
        self.requests: list[tuple[dict, bytes]] = []
        self.gate: threading.Event | None = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                if receiver.gate is not None:
                    assert receiver.gate.wait(60), "the test never opened the gate"
                code = 500 if len(receiver.requests) <= receiver.failures else 200
                self.send_response(code)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            assert time.monotonic() < deadline, f"{len(self.requests)} of {count} deliveries"
            time.sleep(0.05)

    def close(self):
        if self.gate is not None:
            self.gate.set()
        self.server.shutdown()


@pytest.fixture
def fast_app(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "WEBHOOK_BACKOFF_SECONDS": 0.1,
                      "SWEEP_INTERVAL_SECONDS": 0.1})
    yield app
    close_app(app)


@pytest.fixture
def fast_client(fast_app):
    key = (fast_app.instance_path + "/local-instructor-key")
    client = fast_app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = "Bearer " + open(key).read().strip()
    return client


def test_signature_verifies_and_rejects_tampering_and_staleness():
    body = b'{"a":1}'
    ts = int(time.time())
    headers = {"Grader-Event-Id": "e1", "Grader-Timestamp": str(ts),
               "Grader-Signature": "v1=" + sign("s3cret", "e1", ts, body)}
    assert verify("s3cret", headers, body)
    assert not verify("s3cret", headers, b'{"a":2}')
    assert not verify("other", headers, body)
    assert not verify("s3cret", {**headers, "Grader-Event-Id": "e2"}, body)
    assert not verify("s3cret", headers, body, now=ts + 3600)


def test_webhook_is_retried_until_2xx_and_logged(fast_client):
    receiver = Receiver(failures=2)
    try:
        secret = fast_client.get("/api/v1/webhooks/secret").get_json()["webhook_secret"]
        body = {"learner_id": "l1", "responses": {"no-positions": {"choice": "B"}},
                "callback_url": receiver.url}
        sid = fast_client.post(SUB, json=body).get_json()["id"]
        receiver.wait_for(3)
        [delivery] = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        # once the row says delivered (written after the 2xx), no attempt follows
        wait_for_delivery(fast_client, delivery["id"])
        assert len(receiver.requests) == 3  # stops after the 2xx
        headers, raw = receiver.requests[-1]
        assert verify(secret, headers, raw)
        event = json.loads(raw)
        assert event["type"] == "submission.graded"
        assert event["submission"]["id"] == sid and event["submission"]["score"] == 1.0
        assert {h["Grader-Event-Id"] for h, _ in receiver.requests} == {event["id"]}  # one event
        assert event["submission"]["finished_at"].endswith("+00:00")
        log = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        assert [(d["status"], d["attempts"], d["last_status_code"]) for d in log] == [
            ("delivered", 3, 200)]
    finally:
        receiver.close()


def test_replay_sends_the_current_result_as_a_new_marked_event(fast_client):
    receiver = Receiver(failures=0)
    try:
        body = {"learner_id": "l1", "responses": {"no-positions": {"choice": "A"}},
                "callback_url": receiver.url}
        sid = fast_client.post(SUB, json=body).get_json()["id"]
        receiver.wait_for(1)
        [delivery] = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        wait_for_delivery(fast_client, delivery["id"])
        # the receiver holds its answer to the replay until the gate opens, so the replay is
        # pending when the API answers, whenever its delivery thread runs
        receiver.gate = threading.Event()
        resp = fast_client.post(f"/api/v1/webhooks/deliveries/{delivery['id']}/replay")
        assert resp.status_code == 202
        replay = resp.get_json()
        assert (replay["replay_of"], replay["status"], replay["url"]) == (
            delivery["id"], "pending", receiver.url)
        assert resp.headers["Location"].endswith(f"/webhooks/deliveries/{replay['id']}")
        receiver.gate.set()
        receiver.wait_for(2)
        assert wait_for_delivery(fast_client, replay["id"])["attempts"] == 1
        ids = [h["Grader-Event-Id"] for h, _ in receiver.requests]
        assert ids == [delivery["id"], replay["id"]] and replay["id"] != delivery["id"]
        event = json.loads(receiver.requests[1][1])
        assert (event["replay"], event["replay_of"], event["type"]) == (
            True, delivery["id"], "submission.graded")
        assert json.loads(receiver.requests[0][1])["replay"] is False
    finally:
        receiver.close()


def wait_for_delivery(client, delivery_id, status="delivered"):
    for _ in range(200):
        found = client.get(f"/api/v1/webhooks/deliveries/{delivery_id}").get_json()
        if found["status"] == status:
            return found
        time.sleep(0.05)
    raise AssertionError(f"delivery {delivery_id} not {status}: {found}")


def run_regrade(client, assignment_id):
    run = client.post(f"/api/v1/assignments/{assignment_id}/regrades", json={"dry_run": False})
    for _ in range(200):
        report = client.get(run.headers["Location"]).get_json()
        if report["status"] == "done":
            return report
        time.sleep(0.05)
    raise AssertionError(f"regrade not done: {report}")


def test_a_regrade_reaches_the_lms_and_a_replay_never_moves_the_grade_back(fast_client):
    """Issue 14.1, step by step: key A, the learner answers B (0 of 1, webhook); the key becomes
    B and a regrade is applied: the score is now 1 of 1 and ``submission.regraded`` says so;
    replaying the first delivery sends the current 1.0 (marked as a replay), not 0.0."""
    receiver = Receiver(failures=0)
    try:
        secret = fast_client.get("/api/v1/webhooks/secret").get_json()["webhook_secret"]
        quiz = {"id": "quiz", "title": "Quiz", "callback_url": receiver.url, "items": [
            {"id": "pick", "kind": "choice", "points": 1, "prompt": "Which?",
             "options": {"A": "this", "B": "that"}, "answer": "A"}]}
        assert fast_client.post("/api/v1/assignments", json=quiz).status_code == 201
        sid = fast_client.post("/api/v1/assignments/quiz/submissions", json={
            "learner_id": "amy", "responses": {"pick": {"choice": "B"}}}).get_json()["id"]
        receiver.wait_for(1)
        first = json.loads(receiver.requests[0][1])
        assert (first["type"], first["submission"]["score"]) == ("submission.graded", 0.0)

        quiz["items"][0]["answer"] = "B"
        assert fast_client.put("/api/v1/assignments/quiz", json=quiz).status_code == 200
        report = run_regrade(fast_client, "quiz")
        assert report["report"][0]["new_score"] == 1.0 and report["report"][0]["applied"]
        receiver.wait_for(2)
        headers, raw = receiver.requests[1]
        assert verify(secret, headers, raw)
        regraded = json.loads(raw)
        assert regraded["type"] == "submission.regraded"
        assert (regraded["submission"]["score"], regraded["submission"]["max_score"]) == (1.0, 1.0)
        assert regraded["previous"] == {"score": 0.0, "max_score": 1.0}
        assert regraded["regrade_id"] == report["id"] and regraded["id"] != first["id"]
        assert regraded["submission"]["scored_at"] > first["submission"]["scored_at"]

        replay = fast_client.post(f"/api/v1/webhooks/deliveries/{first['id']}/replay").get_json()
        receiver.wait_for(3)
        replayed = json.loads(receiver.requests[2][1])
        assert (replayed["type"], replayed["replay"], replayed["replay_of"]) == (
            "submission.graded", True, first["id"])
        assert replayed["submission"]["score"] == 1.0  # the current result, never the old 0.0
        assert replayed["submission"]["scored_at"] == regraded["submission"]["scored_at"]

        # consistent fields: delivered rows have delivered_at and no next attempt; the replayed
        # row is left as it was (delivered), the replay is a row of its own
        log = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        for d in log:  # each row is written delivered after its 2xx, by the delivery thread
            wait_for_delivery(fast_client, d["id"])
        log = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        assert sorted((d["event"], d["status"], d["replay_of"] or "") for d in log) == sorted([
            ("submission.graded", "delivered", ""),
            ("submission.regraded", "delivered", ""),
            ("submission.graded", "delivered", first["id"])])
        for d in log:
            assert d["next_attempt_at"] is None and d["delivered_at"] is not None, d
            assert d["channel"] == "webhook"

        # a regrade that changes nothing announces nothing: an announcement is a delivery row,
        # made before the regrade is done, so none exists, and every row is delivered: nothing
        # more can be sent
        assert run_regrade(fast_client, "quiz")["report"][0]["difference"] == 0.0
        after = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        assert [d["status"] for d in after] == ["delivered"] * 3
        assert len(receiver.requests) == 3
    finally:
        receiver.close()


def test_a_newer_result_supersedes_an_older_pending_delivery(fast_app, fast_client):
    """A receiver that fails: the graded event waits for its retry when the regrade's event is
    made; the older one is superseded (never sent after the newer), the newer one is pending."""
    receiver = Receiver(failures=1000)
    try:
        store = fast_app.extensions["grader"].store
        quiz = {"id": "quiz2", "title": "Quiz", "callback_url": receiver.url, "items": [
            {"id": "pick", "kind": "choice", "points": 1, "prompt": "Which?",
             "options": {"A": "this", "B": "that"}, "answer": "A"}]}
        fast_client.post("/api/v1/assignments", json=quiz)
        sid = fast_client.post("/api/v1/assignments/quiz2/submissions", json={
            "learner_id": "amy", "responses": {"pick": {"choice": "B"}}}).get_json()["id"]
        receiver.wait_for(1)
        [graded] = store.webhooks.list("local", sid)
        quiz["items"][0]["answer"] = "B"
        fast_client.put("/api/v1/assignments/quiz2", json=quiz)
        run_regrade(fast_client, "quiz2")
        old = wait_for_delivery(fast_client, graded.id, "superseded")
        assert old["next_attempt_at"] is None
        [newer] = [d for d in store.webhooks.list("local", sid) if d.id != graded.id]
        assert old["last_error"].startswith(f"superseded by {newer.id}")
        assert newer.event == "submission.regraded" and newer.payload["submission"]["score"] == 1.0
        # a late failed attempt of the superseded delivery does not bring it back
        store.webhooks.record_attempt(graded.id, False, 500, "HTTP 500",
                                      next_attempt_at=newer.created_at)
        assert store.webhooks.get(graded.id).status == "superseded"
    finally:
        receiver.close()


def test_callback_url_must_be_http(client):
    body = {"learner_id": "l1", "responses": {"no-positions": {"choice": "B"}}, "callback_url": "file:///etc/passwd"}
    resp = client.post(SUB, json=body)
    assert resp.status_code == 422
    assert resp.get_json()["field"] == "callback_url"


def test_production_refuses_callbacks_to_private_addresses(embedded_config):
    from grader.config import webhooks_may_reach_private
    from grader.notify.webhooks import private_target

    assert "non-public address 127.0.0.1" in private_target("http://127.0.0.1:9/hook")
    assert "non-public" in private_target("http://10.1.2.3/hook")
    assert "non-public" in private_target("http://[::1]/hook")
    assert private_target("http://93.184.216.34/hook") is None
    assert webhooks_may_reach_private({"CELERY_BROKER_URL": ""})
    assert not webhooks_may_reach_private({"CELERY_BROKER_URL": "redis://x"})
    assert webhooks_may_reach_private({"CELERY_BROKER_URL": "redis://x",
                                       "WEBHOOK_ALLOW_PRIVATE": "1"})


def test_a_refused_callback_is_logged_and_not_retried(fast_app, fast_client):
    fast_app.extensions["grader"].dispatcher.service.notifier.channels["webhook"].allow_private = False
    body = {"learner_id": "l1", "responses": {"no-positions": {"choice": "B"}},
            "callback_url": "http://127.0.0.1:9/hook"}
    sid = fast_client.post(SUB, json=body).get_json()["id"]
    fast_client.get(f"/api/v1/submissions/{sid}?wait=10")
    for _ in range(100):
        log = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        if log and log[0]["status"] != "pending":
            break
        time.sleep(0.05)
    assert (log[0]["status"], log[0]["attempts"]) == ("gave_up", 1)
    assert log[0]["last_error"].startswith("refused:")
