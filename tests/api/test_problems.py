"""Issue 25: instructors upload code problems (YAML or JSON), version them with PUT, try them,
and use them in code items (``problem: <id>`` pins the newest version, ``<id>@<n>`` version n);
submissions are graded in the sandbox like the built-ins'."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "problems"
COSINE = (EXAMPLES / "cosine_attention.yaml").read_text()
YAML = {"Content-Type": "application/yaml"}


def upload(client, text=COSINE, method="post", path="/api/v1/problems"):
    return getattr(client, method)(path, data=text, headers=YAML)


def mistake_source(index: int) -> str:
    return yaml.safe_load(COSINE)["mistakes"][index]["source"]


def graded(client, code: str, assignment="hw-cos", learner="amy") -> dict:
    sid = client.post(f"/api/v1/assignments/{assignment}/submissions", json={
        "learner_id": learner, "responses": {"cos": {"code": code}}}).get_json()["id"]
    return client.get(f"/api/v1/submissions/{sid}?wait=60").get_json()


def make_assignment(client, ref="cosine-attention", assignment="hw-cos"):
    resp = client.post("/api/v1/assignments", json={
        "id": assignment, "title": "Cosine attention", "published": True,
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": ref}]})
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


@pytest.fixture
def uploaded(client):
    resp = upload(client)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def test_upload_answers_with_the_trial(uploaded):
    assert (uploaded["id"], uploaded["version"]) == ("cosine-attention", 1)
    trial = uploaded["trial"]
    assert trial["refused"] is None and trial["reference"]["full"] is True
    assert [m["named"] for m in trial["mistakes"]] == [True, True, True]
    assert trial["mutants_caught"]["caught"] == trial["mutants_caught"]["of"] > 10


def test_invalid_document_is_422_naming_the_field(client):
    doc = yaml.safe_load(COSINE)
    doc["arguments"]["tau"] = {"float": [0.5, 0.05]}
    resp = client.post("/api/v1/problems", json=doc)
    assert resp.status_code == 422
    error = resp.get_json()
    assert (error["code"], error["field"]) == ("invalid_problem", "arguments.tau.float")
    assert "lo <= hi" in error["message"]


def test_a_yaml_document_is_read_with_the_rubric_uploads_bounds(client):
    # a 4301-digit integer, and the "billion laughs" alias bomb (9 levels of 10 aliases: 10^9
    # values once expanded), are refused as documents before anything is built
    long = upload(client, "id: long\ntitle: " + "7" * 4301 + "\n")
    assert (long.status_code, long.get_json()["code"]) == (422, "invalid_problem")
    assert "a number has 4301 digits" in long.get_json()["message"]
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    bomb = upload(client, "\n".join(levels) + "\nid: bomb\n")
    assert (bomb.status_code, bomb.get_json()["code"]) == (422, "invalid_problem")
    assert client.get("/api/v1/problems").get_json() == []


def test_a_reference_that_fails_is_refused_with_the_reason(client):
    doc = yaml.safe_load(COSINE)
    doc["reference"] = ("def cosine_attention(Q, K, V, tau):\n"
                        "    return Q @ K.T\n")  # the 3-D cases: wrong; the inputs case crashes
    resp = client.post("/api/v1/problems", json=doc)
    assert resp.status_code == 422
    error = resp.get_json()
    assert error["code"] == "problem_refused" and "the reference" in error["message"]
    assert error["field"] == "reference"  # no mistake met a time limit
    assert client.get("/api/v1/problems/cosine-attention").status_code == 404


def test_put_adds_a_version_and_get_lists_them(client, uploaded):
    doc = yaml.safe_load(COSINE)
    doc["title"] = "Cosine attention (v2)"
    resp = upload(client, json.dumps(doc), "put", "/api/v1/problems/cosine-attention")
    assert resp.status_code == 200 and resp.get_json()["version"] == 2
    got = client.get("/api/v1/problems/cosine-attention").get_json()
    assert (got["version"], got["title"], got["versions"]) == (2, "Cosine attention (v2)", [1, 2])
    assert client.get("/api/v1/problems/cosine-attention?version=1").get_json()["title"] == \
        "Cosine-similarity attention"
    listing = client.get("/api/v1/problems").get_json()
    assert [(p["id"], p["latest"]) for p in listing] == [("cosine-attention", 2)]
    assert upload(client).status_code == 409


def test_trial_endpoint_runs_the_trial_again(client, uploaded):
    report = client.post("/api/v1/problems/cosine-attention/trial",
                         json={"mutants": False}).get_json()
    assert report["version"] == 1 and report["reference"]["full"] is True
    assert "mutants" not in report and report["seconds_per_grading"] > 0


def test_code_item_grades_correct_buggy_and_hostile_code(client, uploaded):
    made = make_assignment(client)
    assert made["items"][0]["kind"] == "code"
    view = client.get("/api/v1/assignments/hw-cos").get_json()["items"][0]
    assert view["function"] == "cosine_attention" and len(view["visible_tests"]) == 2
    assert "document" not in json.dumps(view) and "np.linalg.norm(Q" not in json.dumps(view)
    correct = graded(client, yaml.safe_load(COSINE)["reference"])
    assert (correct["status"], correct["score"]) == ("graded", 10.0)
    pictures = correct["items"][0]["extra_data"]["pictures"]
    assert len(pictures) == 2 and pictures[0]["shows"] == "weights"
    buggy = graded(client, mistake_source(1))
    item = buggy["items"][0]
    assert buggy["score"] == 0 and item["extra_data"]["diagnoses"] == ["tau-multiplied"]
    hostile = graded(client, "import os\n"
                             "def cosine_attention(Q, K, V, tau):\n"
                             "    return os.listdir('/')\n")
    assert (hostile["status"], hostile["score"]) == ("graded", 0)


def test_unknown_problem_in_an_item_is_422_naming_it(client):
    resp = client.post("/api/v1/assignments", json={
        "id": "hw-x", "title": "x",
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": "nope"}]})
    assert resp.status_code == 422
    assert resp.get_json()["field"] == "items[0].problem"


def test_an_item_keeps_the_version_it_pinned(client, uploaded):
    make_assignment(client, "cosine-attention@1")
    doc = yaml.safe_load(COSINE)
    doc["title"] = "renamed"
    upload(client, json.dumps(doc), "put", "/api/v1/problems/cosine-attention")
    assert client.get("/api/v1/assignments/hw-cos").get_json()["items"][0]["prompt"] == \
        "Cosine-similarity attention"
    make_assignment(client, "cosine-attention", "hw-cos-2")
    assert client.get("/api/v1/assignments/hw-cos-2").get_json()["items"][0]["prompt"] == \
        "renamed"


def test_the_stored_assignment_names_the_pinned_version_and_patches(client, uploaded):
    make_assignment(client)
    record = client.application.extensions["grader"].store.content.assignment("local", "hw-cos")
    assert record.document["items"][0]["problem"] == "cosine-attention@1"
    resp = client.patch("/api/v1/assignments/hw-cos", json={"title": "Renamed"},
                        headers={"Content-Type": "application/merge-patch+json"})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["version"] == 2
    assert graded(client, yaml.safe_load(COSINE)["reference"])["score"] == 10.0


def test_a_grading_takes_its_seed_from_the_pool_the_trial_filled(app, client, uploaded):
    from grader.problems.authored import registry

    assert uploaded["trial"]["pool_seeds"] == 16
    make_assignment(client)
    store = app.extensions["grader"].store
    buggy = graded(client, mistake_source(1))
    assert buggy["score"] == 0 and "seed" not in buggy["items"][0]["extra_data"]
    stored = store.get(buggy["id"])
    seed = stored.results[0]["extra_data"]["seed"]
    record = store.content.problem(stored.course_id, "cosine-attention", 1)
    problem = registry.compiled(registry.inline(record))
    runs = problem.executor.runs
    assert problem.executor.ready() == 15  # one taken; no top-up above 8
    # the regrade passes the recorded seed back: same inputs, values cached, same score
    run = client.post("/api/v1/assignments/hw-cos/regrades", json={"dry_run": False})
    assert client.get(run.headers["Location"] + "?wait=60").get_json()["status"] == "done"
    again = store.get(buggy["id"])
    assert again.results[0]["extra_data"]["seed"] == seed
    assert again.score == 0 and problem.executor.runs == runs
    assert [t["status"] for t in again.results[0]["tests"]] == [
        t["status"] for t in stored.results[0]["tests"]]


def test_a_regrade_of_a_grading_on_its_own_seed_keeps_that_seed(app, client, uploaded):
    from grader.problems.authored import pool, registry

    make_assignment(client)
    store = app.extensions["grader"].store
    record = store.content.problem("local", "cosine-attention", 1)
    problem = registry.compiled(registry.inline(record))
    while problem.executor.take() is not None:  # an empty pool: the grading's own seed
        pass
    buggy = graded(client, mistake_source(0))
    stored = store.get(buggy["id"])
    assert "seed" not in stored.results[0]["extra_data"]
    pool.last_top_up(problem).join(60)  # the empty pool's top-up, started by that grading
    assert problem.executor.ready() == 16
    run = client.post("/api/v1/assignments/hw-cos/regrades", json={"dry_run": False})
    assert client.get(run.headers["Location"] + "?wait=60").get_json()["status"] == "done"
    again = store.get(buggy["id"])
    assert "seed" not in again.results[0]["extra_data"]  # not a pool seed: its own again
    assert problem.executor.ready() == 16 and again.score == stored.score < 10
    assert [t["status"] for t in again.results[0]["tests"]] == [
        t["status"] for t in stored.results[0]["tests"]]


def test_a_refusal_blamed_on_a_mistake_names_its_field(client, monkeypatch):
    """The 422's ``field`` is the trial report's ``refused_field`` (``mistakes[i]`` when a
    mistake that hung used up the reference's sandbox time: see
    tests/problems/authored/test_hanging_mistake.py, which makes the report)."""
    from grader.api import problems

    def refused(raw, with_mutants=True):
        report = {"refused": "problem cosine-attention: the reference failed on test 'x': "
                  "skipped; mistake 'm1' met the time limit on test 'example 1', ...",
                  "refused_field": "mistakes[0]",
                  "findings": [{"check": "reference_runs", "message": "..."}]}
        return raw, None, report, {}

    monkeypatch.setattr(problems, "try_problem", refused)
    resp = client.post("/api/v1/problems", json=yaml.safe_load(COSINE))
    assert resp.status_code == 422
    error = resp.get_json()
    assert (error["code"], error["field"]) == ("problem_refused", "mistakes[0]")
    assert "mistake 'm1' met the time limit" in error["message"]
