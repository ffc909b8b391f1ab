"""Bad input gets a clear 4xx or a bounded evaluation, and the service stays responsive.

Cheap cases run against the app in process. Cases that could hang a process (a catastrophic
regular expression, a rubric of 10,000 criteria) run against a served app in a subprocess, so a
failure is a failed assertion within its bound, never a hung test run.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from benchmarks.stack import free_port
from tests.conftest import ROOT

SUBMIT = "/api/v1/assignments/attention-basics/submissions"
MB = 1 << 20


def post_raw(client, body: bytes, content_type="application/json"):
    return client.post(SUBMIT, data=body, content_type=content_type)


def assert_error(resp, status, code=None):
    body = resp.get_json()
    assert resp.status_code == status, body
    assert body["status"] == status and isinstance(body["message"], str) and body["message"]
    if code is not None:
        assert body["code"] == code


def test_body_over_the_size_limit_is_413(client):
    resp = post_raw(client, b'{"learner_id": "l", "responses": {}, "pad": "' + b"x" * (3 * MB)
                    + b'"}')
    assert_error(resp, 413, "payload_too_large")


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_deeply_nested_json_is_a_clear_400(client, depth):
    body = (b'{"learner_id": "l", "responses": {"sdpa": {"code": ' + b"[" * depth + b"]" * depth
            + b"}}}")
    resp = post_raw(client, body)
    assert 400 <= resp.status_code < 500, resp.get_data(as_text=True)[:300]
    assert resp.get_json()["code"] in ("invalid_json", "validation_error")


@pytest.mark.parametrize("body", [
    b'{"learner_id": "\xff\xfe", "responses": {}}',
    b'{"learner_id": "l", "responses": {"quadratic-cost": {"text": "caf\xe9"}}}',
    b"\xef\xbb\xbf\x80\x81",
])
def test_non_utf8_bytes_are_a_clear_400(client, body):
    assert_error(post_raw(client, body), 400, "invalid_json")


def test_one_megabyte_of_code_is_refused_naming_the_field(client):
    code = "import numpy as np\n" + "x = 1\n" * (MB // 6)
    resp = client.post(SUBMIT, json={"learner_id": "l", "responses": {"sdpa": {"code": code}}})
    assert_error(resp, 422, "validation_error")
    assert resp.get_json()["field"] == "responses.sdpa"


def test_one_megabyte_text_answer_is_refused_naming_the_field(client):
    text = "attention is quadratic in the sequence length " * (MB // 47)
    resp = client.post(SUBMIT, json={"learner_id": "l",
                                     "responses": {"quadratic-cost": {"text": text}}})
    assert_error(resp, 422, "validation_error")
    assert resp.get_json()["field"] == "responses.quadratic-cost"


def test_wrong_json_types_everywhere_are_422_not_500(client):
    for body in ([], "text", 3, {"learner_id": 5, "responses": []},
                 {"learner_id": "l", "responses": {"sdpa": {"code": ["not", "a", "string"]}}},
                 {"learner_id": "l", "responses": {"no-positions": {"choice": None}}}):
        resp = client.post(SUBMIT, json=body)
        assert 400 <= resp.status_code < 500, (body, resp.get_json())


# -- cases that could hang a process: against a served app -------------------------------------
@pytest.fixture
def served(tmp_path):
    """``grader serve`` on the embedded default in a subprocess (one per test: a case that hangs
    it must not affect the next); yields (base URL, session)."""
    tmp = tmp_path
    port = free_port()
    env = {**os.environ, "INSTANCE_PATH": str(tmp / "instance"), "DATABASE_URL": "",
           "CELERY_BROKER_URL": "", "GRADER_SECRET_KEY": "bad-input", "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL")
    log = open(tmp / "serve.log", "wb")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "grader"), "serve", "--port",
                             str(port)], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=1).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError((tmp / "serve.log").read_text(errors="replace"))
            time.sleep(0.1)
        session = requests.Session()
        key = (tmp / "instance" / "local-instructor-key").read_text().strip()
        session.headers["Authorization"] = f"Bearer {key}"
        yield base, session
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def answered_while_probing(call, base: str, bound: float) -> tuple[object, list]:
    """Run ``call()`` in a thread while probing ``/healthz``; returns its result (or the
    exception, or ``None`` if it had not finished after ``bound`` s: a hang guard, not a speed
    target) and each probe's status (``None``: no answer within ``bound`` s)."""
    outcome: list = [None]

    def target():
        try:
            outcome[0] = call()
        except Exception as exc:  # noqa: BLE001 - reported to the assertion
            outcome[0] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    probes = []
    deadline = time.monotonic() + bound
    while thread.is_alive() and time.monotonic() < deadline:
        try:
            probes.append(requests.get(f"{base}/healthz", timeout=bound).status_code)
        except requests.RequestException:
            probes.append(None)
        time.sleep(0.2)
    thread.join(max(0.0, deadline - time.monotonic()))
    return outcome[0], probes


def rubric(rubric_id, criteria):
    return {"id": rubric_id, "question": "Why is self-attention quadratic?",
            "max_points": float(sum(c["points"] for c in criteria)), "criteria": criteria}


@pytest.mark.slow
@pytest.mark.parametrize("pattern, text", [
    ("(a+)+$", "a" * 5000 + "!"),
    ("(a|aa)+$", "a" * 5000 + "!"),
    (r"(\w+\s?)+$", "word" * 1250 + "!"),
])
def test_catastrophic_regular_expression_is_refused_or_bounded(served, pattern, text):
    base, session = served
    document = rubric("redos", [{"id": "c1", "description": "evil", "points": 1,
                                 "concepts": [{"regex": pattern}]}])
    upload = session.post(f"{base}/api/v1/rubrics", json=document, timeout=30)
    if upload.status_code == 422:  # refused at upload: a clear 4xx
        assert upload.json()["code"] == "invalid_rubric"
        return
    assert upload.status_code == 201, upload.text
    trial = {"responses": [{"text": text, "mark": 0}]}
    result, probes = answered_while_probing(
        lambda: session.post(f"{base}/api/v1/rubrics/redos/trial", json=trial, timeout=60),
        base, bound=60.0)
    assert isinstance(result, requests.Response), \
        f"scoring {len(text)} characters against {pattern} did not finish ({result!r})"
    assert result.status_code < 500
    # the service kept answering while it scored: every probe made meanwhile got its 200
    assert all(status == 200 for status in probes), probes


@pytest.mark.slow
def test_rubric_with_10000_criteria_is_refused_or_bounded(served):
    base, session = served
    criteria = [{"id": f"c{i}", "description": f"mentions word{i}", "points": 1,
                 "concepts": [f"word{i}"]} for i in range(10_000)]
    upload = session.post(f"{base}/api/v1/rubrics", json=rubric("huge", criteria), timeout=60)
    if 400 <= upload.status_code < 500:
        assert upload.json()["code"] in ("invalid_rubric", "payload_too_large")
        return
    assert upload.status_code == 201, upload.text
    trial = {"responses": [{"text": "word5 and word77 " * 400, "mark": 1}]}
    result, probes = answered_while_probing(
        lambda: session.post(f"{base}/api/v1/rubrics/huge/trial", json=trial, timeout=60),
        base, bound=60.0)
    assert isinstance(result, requests.Response), \
        f"scoring one answer against 10,000 criteria did not finish ({result!r})"
    assert result.status_code < 500
    assert all(status == 200 for status in probes), probes
