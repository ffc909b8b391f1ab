"""/healthz, /readyz, /metrics, request ids and the submission id on every log line of its path."""
import io
import json
import logging
import time

import pytest
from prometheus_client import REGISTRY

from grader.observability import InstrumentedSandbox, metrics
from grader.observability.health import SandboxCheck
from grader.observability.logs import configure_logging
from grader.sandbox.api import RunResult
from tests.conftest import example, wait_final

SUBMIT = "/api/v1/assignments/attention-basics/submissions"


@pytest.fixture
def obs_app(app):
    """create_app wires the probes, metrics and the instrumented grading service."""
    assert "observability" in app.extensions
    assert getattr(app.extensions["grader"].dispatcher.service.grade, "_instrumented", False)
    return app


@pytest.fixture
def obs_client(obs_app, instructor_key):
    client = obs_app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {instructor_key}"
    return client


def sample(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_healthz_answers_without_consulting_dependencies(obs_app):
    resp = obs_app.test_client().get("/healthz")
    assert (resp.status_code, resp.get_json()) == (200, {"status": "ok"})


def test_readyz_reports_store_broker_and_sandbox(obs_app):
    resp = obs_app.test_client().get("/readyz")
    body = resp.get_json()
    assert resp.status_code == 200, body
    assert body["status"] == "ready"
    assert set(body["checks"]) == {"store", "broker", "sandbox"}
    assert body["checks"]["broker"]["mode"] == "inline"
    assert all(check["ok"] for check in body["checks"].values())


def test_readyz_is_503_with_retry_after_when_the_sandbox_self_test_fails(obs_app):
    def broken(_config):
        raise RuntimeError("bubblewrap missing")

    obs_app.extensions["observability"]["sandbox_check"] = SandboxCheck({}, 60, run=broken)
    resp = obs_app.test_client().get("/readyz")
    body = resp.get_json()
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "5"
    assert body["checks"]["sandbox"]["ok"] is False
    assert "bubblewrap missing" in body["checks"]["sandbox"]["error"]
    assert body["checks"]["store"]["ok"] is True


def test_readyz_is_503_when_the_broker_is_unreachable(embedded_config):
    from grader.app import close_app, create_app
    from benchmarks.stack import free_port

    app = create_app({**embedded_config, "CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0",
                      "READY_CHECK_SANDBOX": "0"})
    try:
        resp = app.test_client().get("/readyz")
    finally:
        close_app(app)
    body = resp.get_json()
    assert resp.status_code == 503
    assert body["checks"]["broker"]["ok"] is False and "sandbox" not in body["checks"]


def test_request_id_is_echoed_or_made(obs_app):
    client = obs_app.test_client()
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"] \
        == "abc-123"
    made = client.get("/healthz", headers={"X-Request-ID": "bad id;<x>"}).headers["X-Request-ID"]
    assert len(made) == 32 and made != "bad id;<x>"


def test_metrics_count_submissions_by_status_and_time_the_grading(obs_client):
    graded_before = sample("grader_grading_seconds_count", outcome="graded")
    latency_before = sample("grader_submission_latency_seconds_count")
    resp = obs_client.post(SUBMIT, json=example("submission_correct.json"))
    assert resp.status_code == 202, resp.get_json()
    done = wait_final(lambda: obs_client.get(resp.headers["Location"]).get_json())
    assert done["status"] == "graded"
    text = obs_client.get("/metrics").get_data(as_text=True)
    assert 'grader_submissions{status="graded"} 1.0' in text
    assert 'grader_submissions{status="queued"} 0.0' in text
    assert 'grader_queue_depth{queue="inline"} 0.0' in text
    assert sample("grader_grading_seconds_count", outcome="graded") == graded_before + 1
    assert sample("grader_submission_latency_seconds_count") == latency_before + 1
    assert sample("grader_http_requests_total", method="POST",
                  endpoint="submissions.SubmissionIntake", status="202") >= 1


def test_every_log_line_of_a_submission_carries_its_id(obs_client):
    stream = io.StringIO()
    handler = configure_logging(level="DEBUG", fmt="json", stream=stream)
    try:
        resp = obs_client.post(SUBMIT, json=example("submission_correct.json"))
        submission_id = resp.get_json()["id"]
        wait_final(lambda: obs_client.get(resp.headers["Location"]).get_json())
        # the run's closing line is logged after the grade is stored and announced
        deadline = time.monotonic() + 10
        while '"outcome": "graded"' not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        logging.getLogger().removeHandler(handler)
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    path = [e for e in entries if e["logger"].startswith(("grader.grading", "grader.access"))
            and e.get("http_method") != "GET"]
    assert any(e["logger"] == "grader.access" and e["status"] == 202 for e in path)
    assert any(e["logger"] == "grader.grading" and e.get("outcome") == "graded" for e in path)
    assert {e["submission_id"] for e in path} == {submission_id}
    polls = [e for e in entries if e.get("http_method") == "GET"]
    assert polls and {e["submission_id"] for e in polls} == {submission_id}


class FakeSandbox:
    def __init__(self, status):
        self.status = status
        self.closed = False

    def run(self, source, calls, limits):
        return RunResult(status=self.status)

    def close(self):
        self.closed = True


def test_sandbox_outcomes_are_counted_by_kind():
    before = sample("grader_sandbox_runs_total", status="timeout")
    sandbox = InstrumentedSandbox(FakeSandbox("timeout"))
    assert sandbox.run("x = 1", [], None).status == "timeout"
    sandbox.run("x = 1", [], None)
    sandbox.close()
    assert sample("grader_sandbox_runs_total", status="timeout") == before + 2
    assert sandbox.closed is True  # delegated attribute


def test_webhook_deliveries_are_counted_by_outcome():
    before = sample("grader_webhook_deliveries_total", outcome="delivered")
    metrics.record_webhook_delivery("delivered")
    assert sample("grader_webhook_deliveries_total", outcome="delivered") == before + 1


def test_queue_depth_reads_the_celery_lists_on_redis(redis_url):
    import uuid

    import redis

    client = redis.Redis.from_url(redis_url)
    queue = f"obs-test-{uuid.uuid4().hex[:8]}"
    try:
        client.lpush(queue, "a", "b", "c")
        client.lpush(f"{queue}\x06\x163", "d")
        waiting, unacked = metrics.redis_queue_depth(client, queue)
    finally:
        client.delete(queue, f"{queue}\x06\x163")
    assert waiting == 4 and unacked >= 0
