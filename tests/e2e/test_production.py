"""Production mode end to end: gunicorn serving the app, a real Celery worker on the real Redis,
the real PostgreSQL as the store. Configured only by environment variables."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT, example, wait_final

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd, env, log_path):
    log = open(log_path, "wb")
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def production(tmp_path, redis_url, postgres_url):
    """gunicorn + Celery worker + Redis + PostgreSQL; yields the API base URL, an lms key's
    headers and the processes' environment."""
    port = free_port()
    env = {
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DATABASE_URL": postgres_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_QUEUE": f"grading-test-{uuid.uuid4().hex[:8]}",
        "GRADER_SECRET_KEY": "e2e-secret",
        "INSTANCE_PATH": str(tmp_path / "instance"),
    }
    worker = start([str(BIN / "grader"), "worker", "--concurrency", "2"], env,
                   tmp_path / "worker.log")
    api = start([str(BIN / "gunicorn"), "--worker-class", "gthread", "--threads", "4",
                 "--workers", "2", "--bind", f"127.0.0.1:{port}",
                 "grader.wsgi:app"], env, tmp_path / "api.log")
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:  # not accepting yet, or workers still booting
                pass
            if time.monotonic() > deadline or api.poll() is not None:
                raise AssertionError("gunicorn did not start:\n"
                                     + (tmp_path / "api.log").read_text(errors="replace"))
            time.sleep(0.2)
        yield base, course_key(base, env), env
    finally:
        stop(api)
        stop(worker)
        print((tmp_path / "worker.log").read_text(errors="replace")[-4000:])


def course_key(base, env) -> dict:
    """An admin key from the CLI, then a course and its lms key through the API; returns the
    lms key's headers."""
    admin = subprocess.run([str(BIN / "grader"), "create-admin-key"], env=env, cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    auth = {"Authorization": f"Bearer {admin}"}
    resp = requests.post(f"{base}/api/v1/courses", json={"id": "cs-e2e", "name": "E2E"},
                         headers=auth, timeout=10)
    assert resp.status_code == 201, resp.text
    resp = requests.post(f"{base}/api/v1/courses/cs-e2e/keys", json={"role": "lms"},
                         headers=auth, timeout=10)
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Bearer {resp.json()['key']}"}


def submit(base, headers, body):
    resp = requests.post(f"{base}/api/v1/assignments/attention-basics/submissions", json=body,
                         headers=headers, timeout=10)
    assert resp.status_code == 202, resp.text
    return base + resp.headers["Location"]


def test_production_stack_grades_exact_scores(production):
    base, headers, _env = production
    urls = {name: submit(base, headers, example(name)) for name in
            ("submission_correct.json", "submission_divides_by_dk.json", "submission_text.json")}
    results = {name: wait_final(lambda u=url: requests.get(u, headers=headers, timeout=10).json(),
                                timeout=120)
               for name, url in urls.items()}
    correct = results["submission_correct.json"]
    assert correct["status"] == "graded", correct
    assert (correct["score"], correct["max_score"]) == (16.0, 16.0)

    by_dk = results["submission_divides_by_dk.json"]
    sdpa = {i["item_id"]: i for i in by_dk["items"]}["sdpa"]
    assert by_dk["status"] == "graded"
    assert (sdpa["score"], by_dk["score"], by_dk["max_score"]) == (8.0, 8.0, 16.0)  # scaling: 2
    assert {tag for t in sdpa["tests"] if t["status"] == "failed" for tag in t["tags"]} >= {
        "scaling", "diagnosis:scale_by_d_k"}
    assert any("sqrt(d_k)" in t["output"] for t in sdpa["tests"] if t["status"] == "failed")

    text = results["submission_text.json"]
    assert {i["item_id"]: i for i in text["items"]}["quadratic-cost"]["score"] == 5.0
    assert text["score"] == 5.0


def test_the_worker_announces_final_submissions_and_long_polls_answer_at_once(production):
    """The worker publishes each final id on the broker's channel (grader.wakeup), and a
    long-poll started before grading ends answers with the graded result."""
    import redis

    base, headers, env = production
    pubsub = redis.Redis.from_url(env["CELERY_BROKER_URL"]).pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(f"grader:final:{env['CELERY_QUEUE']}")
    try:
        url = submit(base, headers, example("submission_correct.json"))
        data = requests.get(url, params={"wait": 60}, headers=headers, timeout=90).json()
        assert data["status"] == "graded" and data["score"] == 16.0, data
        deadline, announced = time.monotonic() + 30, []
        while data["id"] not in announced and time.monotonic() < deadline:
            message = pubsub.get_message(timeout=1.0)
            if message and message["type"] == "message":
                announced.append(message["data"].decode())
        assert announced == [data["id"]]
    finally:
        pubsub.close()
