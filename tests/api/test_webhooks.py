"""Signed webhooks to a real local HTTP receiver: signature, retry until a 2xx, log, replay."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from grader.notify.webhooks import sign, verify

SUB = "/api/v1/assignments/attention-basics/submissions"


class Receiver:
    """A local HTTP server that answers 500 to the first ``failures`` requests, then 200."""

    def __init__(self, failures: int):
        self.failures = failures
        self.requests: list[tuple[dict, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
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
        self.server.shutdown()


@pytest.fixture
def fast_app(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "WEBHOOK_BACKOFF_SECONDS": 0.1,
                      "SWEEP_INTERVAL_SECONDS": 0.1})
    yield app
    app.extensions["grader"].dispatcher.close()


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
        time.sleep(0.2)
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


def test_replay_delivers_the_same_event_again(fast_client):
    receiver = Receiver(failures=0)
    try:
        body = {"learner_id": "l1", "responses": {"no-positions": {"choice": "A"}},
                "callback_url": receiver.url}
        sid = fast_client.post(SUB, json=body).get_json()["id"]
        receiver.wait_for(1)
        [delivery] = fast_client.get(f"/api/v1/webhooks/deliveries?submission_id={sid}").get_json()
        resp = fast_client.post(f"/api/v1/webhooks/deliveries/{delivery['id']}/replay")
        assert resp.status_code == 202
        receiver.wait_for(2)
        ids = [h["Grader-Event-Id"] for h, _ in receiver.requests]
        assert ids == [delivery["id"], delivery["id"]]
    finally:
        receiver.close()


def test_callback_url_must_be_http(client):
    body = {"learner_id": "l1", "responses": {}, "callback_url": "file:///etc/passwd"}
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
    fast_app.extensions["grader"].dispatcher.service.notifier.allow_private = False
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
