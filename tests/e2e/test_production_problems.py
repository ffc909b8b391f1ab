"""Issue 25 in production mode end to end: gunicorn (no sandbox in the API process), a real Celery
worker on the real Redis, the real PostgreSQL. An authored problem's upload answers 202, its
trial runs on the worker, and once it passed a code item grades with it on the worker."""
from __future__ import annotations

import subprocess
from pathlib import Path

import requests
import yaml

from tests.conftest import ROOT
from tests.e2e.test_production import BIN, production  # noqa: F401  (the fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "problems"
COSINE = (EXAMPLES / "cosine_attention.yaml").read_text()


def instructor(base, env) -> dict:
    admin = subprocess.run([str(BIN / "grader"), "create-admin-key"], env=env, cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    resp = requests.post(f"{base}/api/v1/courses/cs-e2e/keys", json={"role": "instructor"},
                         headers={"Authorization": f"Bearer {admin}"}, timeout=10)
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Bearer {resp.json()['key']}"}


def final_run(base, location, headers) -> dict:
    """Long-poll the trial run until it is final (each request waits up to 30 s)."""
    for _ in range(10):
        run = requests.get(base + location, params={"wait": 30}, headers=headers,
                           timeout=60).json()
        if run["status"] in ("done", "failed"):
            return run
    raise AssertionError(f"the trial did not finish: {run}")


def graded(base, headers, code) -> dict:
    resp = requests.post(f"{base}/api/v1/assignments/hw-cos/submissions", json={
        "learner_id": "amy", "responses": {"cos": {"code": code}}}, headers=headers, timeout=10)
    assert resp.status_code == 202, resp.text
    for _ in range(10):
        data = requests.get(base + resp.headers["Location"], params={"wait": 30},
                            headers=headers, timeout=60).json()
        if data["status"] in ("graded", "failed"):
            return data
    raise AssertionError(f"not graded: {data}")


def test_upload_is_tried_on_the_worker_then_grades(production):  # noqa: F811
    base, _lms, env = production
    headers = instructor(base, env)
    resp = requests.post(f"{base}/api/v1/problems", data=COSINE, timeout=10,
                         headers={**headers, "Content-Type": "application/yaml"})
    assert resp.status_code == 202, resp.text
    assert resp.json()["status"] == "pending" and resp.json()["trial"] is None

    run = final_run(base, resp.headers["Location"], headers)
    assert (run["status"], run["problem_status"]) == ("done", "passed"), run
    assert run["report"]["reference"]["full"] is True
    assert run["report"]["mutants_caught"]["caught"] == run["report"]["mutants_caught"]["of"]
    stored = requests.get(f"{base}/api/v1/problems/cosine-attention", headers=headers,
                          timeout=10).json()
    assert stored["status"] == "passed" and stored["trial"] == run["report"]

    made = requests.post(f"{base}/api/v1/assignments", headers=headers, timeout=10, json={
        "id": "hw-cos", "title": "Cosine attention", "published": True,
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": "cosine-attention"}]})
    assert made.status_code == 201, made.text
    doc = yaml.safe_load(COSINE)
    correct = graded(base, headers, doc["reference"])
    assert (correct["status"], correct["score"]) == ("graded", 10.0), correct
    assert len(correct["items"][0]["extra_data"]["pictures"]) == 2
    buggy = graded(base, headers, doc["mistakes"][1]["source"])
    assert buggy["score"] == 0 and buggy["items"][0]["extra_data"]["diagnoses"] == [
        "tau-multiplied"]

    again = requests.post(f"{base}/api/v1/problems/cosine-attention/trial", timeout=10,
                          json={"mutants": False}, headers=headers)
    assert again.status_code == 202, again.text
    rerun = final_run(base, again.headers["Location"], headers)
    assert rerun["status"] == "done" and rerun["report"]["reference"]["full"] is True
