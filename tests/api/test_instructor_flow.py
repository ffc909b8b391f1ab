"""Instructors: upload and version rubrics, try them on marked responses, build assignments from
them, and regrade (dry run, then apply) with history kept."""
import time

import pytest

from tests.conftest import EXAMPLES

RUBRIC_V1 = """
id: heads-why
question: Why split attention into several heads?
max_points: 2
criteria:
  - id: patterns
    description: each head forms its own attention pattern
    points: 1
    concepts: ["different|several|multiple pattern*|relationship*"]
    feedback: {met: "Yes: several patterns at once.", missed: "Say what several heads buy you."}
  - id: subspaces
    description: heads work in different subspaces
    points: 1
    concepts: ["subspace*"]
    feedback: {met: "Yes: subspaces.", missed: "Mention the subspaces."}
"""

RUBRIC_V2 = RUBRIC_V1.replace("max_points: 2", "max_points: 3").replace(
    """    concepts: ["subspace*"]""", """    concepts: ["subspace*"]
  - id: concatenated
    description: the heads' outputs are concatenated and projected
    points: 1
    concepts: ["concatenat*"]
    feedback: {met: "Yes.", missed: "Say how the heads are combined."}""")

ASSIGNMENT = {
    "id": "hw-heads", "title": "Heads", "items": [
        {"id": "why-heads", "kind": "text", "points": 4, "rubric": "heads-why"},
        {"id": "sdpa", "kind": "code", "points": 10, "problem": "scaled_dot_product_attention"},
    ]}


def upload(client, text, method="post", path="/api/v1/rubrics"):
    return client.open(path, method=method.upper(), data=text, content_type="application/yaml")


def test_invalid_rubric_lists_every_error_with_its_path(client):
    bad = RUBRIC_V1.replace('concepts: ["subspace*"]', 'concepts: ["  "]').replace(
        "points: 1\n    concepts: [\"different", "points: -1\n    concepts: [\"different")
    resp = upload(client, bad)
    body = resp.get_json()
    assert resp.status_code == 422
    assert body["code"] == "invalid_rubric"
    paths = [e["path"] for e in body["errors"]]
    assert len(paths) >= 2
    assert any(p.startswith("criteria[1].concepts[0]") for p in paths)
    assert any(p.startswith("criteria[0].points") for p in paths)


def test_upload_version_and_list_rubrics(client):
    assert upload(client, RUBRIC_V1).status_code == 201
    assert upload(client, RUBRIC_V1).status_code == 409
    resp = upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    assert (resp.status_code, resp.get_json()["version"]) == (200, 2)
    listing = client.get("/api/v1/rubrics").get_json()
    assert listing == [{"id": "heads-why", "versions": listing[0]["versions"], "latest": 2}]
    assert [v["version"] for v in listing[0]["versions"]] == [1, 2]
    old = client.get("/api/v1/rubrics/heads-why?version=1").get_json()
    assert old["document"]["max_points"] == 2 and old["versions"] == [1, 2]


def test_json_rubric_upload_is_accepted(client):
    import yaml

    resp = client.post("/api/v1/rubrics", json=yaml.safe_load(RUBRIC_V1))
    assert resp.status_code == 201


def test_trial_reports_agreement_and_match_counts(client):
    upload(client, RUBRIC_V1)
    responses = [
        {"text": "Several heads learn different patterns in different subspaces.", "mark": 2},
        {"text": "Heads capture multiple relationships.", "mark": 1},
        {"text": "No idea.", "mark": 0},
        {"text": "Because it is faster.", "mark": 2},
    ]
    report = client.post("/api/v1/rubrics/heads-why/trial",
                         json={"responses": responses}).get_json()
    assert report["agreement"]["n"] == 4
    assert report["agreement"]["exact_agreement"] == pytest.approx(0.75)
    assert report["over_marked_count"] == 0 and report["under_marked_count"] == 1
    assert report["under_marked"][0]["text"] == "Because it is faster."
    assert {c["id"]: c["matched"] for c in report["criteria"]} == {"patterns": 2, "subspaces": 1}


@pytest.mark.parametrize("version", [0, -3, 2**31, 2**70])
def test_a_rubric_version_out_of_range_is_422_not_a_crash(client, version):
    """Found by the schema fuzzer: a version beyond a 32-bit integer reached the store (500)."""
    upload(client, RUBRIC_V1)
    trial = client.post("/api/v1/rubrics/heads-why/trial",
                        json={"responses": [{"text": "x", "mark": 1}], "version": version})
    read = client.get(f"/api/v1/rubrics/heads-why?version={version}")
    for response in (trial, read):
        assert response.status_code == 422
        assert response.get_json()["field"] == "version"


def test_assignment_from_an_uploaded_rubric_and_regrade(client):
    upload(client, RUBRIC_V1)
    resp = client.post("/api/v1/assignments", json=ASSIGNMENT)
    assert resp.status_code == 201, resp.get_json()
    assert resp.get_json()["version"] == 1
    answer = {"why-heads": {"text": "Different patterns, in different subspaces, then "
                                    "concatenated."}}
    sid = client.post("/api/v1/assignments/hw-heads/submissions",
                      json={"learner_id": "amy", "responses": answer}).get_json()["id"]
    first = client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()
    assert first["score"] == 4.0  # 2 of 2 rubric points, scaled to 4

    upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    edited = {**ASSIGNMENT, "items": [dict(ASSIGNMENT["items"][0], points=6),
                                      ASSIGNMENT["items"][1]]}
    assert client.put("/api/v1/assignments/hw-heads", json=edited).get_json()["version"] == 2

    dry = client.post("/api/v1/assignments/hw-heads/regrades", json={"dry_run": True})
    report = client.get(dry.headers["Location"]).get_json()
    for _ in range(100):
        if report["status"] == "done":
            break
        time.sleep(0.05)
        report = client.get(dry.headers["Location"]).get_json()
    assert report["report"] == [{"submission_id": sid, "learner_id": "amy", "old_score": 4.0,
                                 "new_score": 6.0, "max_score": 16.0, "difference": 2.0,
                                 "applied": False, "changed": [
                                     {"item_id": "why-heads", "old": "heads-why v1",
                                      "new": "heads-why v2"}]}]
    why = report["versions"]["items"][0]
    assert (why["applies"], why["was"], why["changes"]) == (
        "heads-why v2", [{"version": "heads-why v1", "submissions": 1}], 1)
    assert client.get(f"/api/v1/submissions/{sid}").get_json()["score"] == 4.0

    run = client.post("/api/v1/assignments/hw-heads/regrades", json={"dry_run": False})
    for _ in range(100):
        if client.get(run.headers["Location"]).get_json()["status"] == "done":
            break
        time.sleep(0.05)
    assert client.get(f"/api/v1/submissions/{sid}").get_json()["score"] == 6.0
    history = client.get(f"/api/v1/submissions/{sid}/history").get_json()
    assert [(h["kind"], h["score"]) for h in history] == [("initial", 4.0), ("regrade", 6.0)]
    assert history[0]["versions"]["items"]["why-heads"]["rubric_version"] == 1
    assert history[1]["versions"]["items"]["why-heads"]["rubric_version"] == 2


def test_assignment_with_a_bad_item_is_422_naming_it(client):
    bad = {**ASSIGNMENT, "items": [{"id": "x", "kind": "code", "points": 1, "problem": "nope"}]}
    resp = client.post("/api/v1/assignments", json=bad)
    assert resp.status_code == 422
    assert "items[0]" in resp.get_json()["field"]
    assert "nope" in resp.get_json()["message"]


def test_built_in_assignment_ids_are_reserved(client):
    resp = client.post("/api/v1/assignments", json={**ASSIGNMENT, "id": "attention-basics"})
    assert resp.status_code == 409


def test_hidden_test_details_wait_for_the_due_date(client):
    bug = (EXAMPLES / "sdpa_divides_by_dk.py").read_text()

    def make(assignment_id, due_at):
        doc = {"id": assignment_id, "title": "Due", "due_at": due_at, "items": [
            {"id": "sdpa", "kind": "code", "points": 10, "problem": "scaled_dot_product_attention",
             "hidden_tests": "after_due_date"}]}
        assert client.post("/api/v1/assignments", json=doc).status_code == 201
        sid = client.post(f"/api/v1/assignments/{assignment_id}/submissions",
                          json={"learner_id": "l", "responses": {"sdpa": {"code": bug}}}
                          ).get_json()["id"]
        return client.get(f"/api/v1/submissions/{sid}?wait=30").get_json()

    future = make("due-later", "2999-01-01T00:00:00+00:00")
    past = make("due-before", "2000-01-01T00:00:00+00:00")

    def failed_hidden(result):
        return [t for t in result["items"][0]["tests"]
                if t["visibility"] == "after_due_date" and t["status"] == "failed"]
    assert failed_hidden(future) and failed_hidden(past)
    assert all(t["output"] == "Details of this test are shown after the due date."
               for t in failed_hidden(future))
    hidden_item = future["items"][0]
    assert "sqrt(d_k)" not in hidden_item["output"] and "Diagnosis" not in hidden_item["output"]
    assert not any("sqrt(d_k)" in t["output"] for t in failed_hidden(future))
    assert "diagnoses" not in hidden_item["extra_data"]
    assert "diagnoses" in past["items"][0]["extra_data"]
    assert all("sqrt(d_k)" in t["output"] for t in failed_hidden(past))
    assert future["score"] == past["score"] < 10


@pytest.mark.parametrize("item,field", [
    ({"id": "x", "kind": "code", "points": 1, "problem": "softmax",
      "limits": {"wall_seconds": "abc"}}, "items[0]"),
    ({"id": "x", "kind": "code", "points": 1, "problem": "softmax",
      "limits": {"cpu_seconds": -1}}, "items[0]"),
    ({"id": "x", "kind": "code", "points": 1e308, "problem": "softmax"}, "items[0].points"),
    ({"id": "x", "kind": "choice", "points": 1, "prompt": "?", "options": {"A": "a", "B": "b"},
      "answer": "A", "explanaton": "typo"}, "items[0].explanaton"),
    ({"id": "a b/../", "kind": "choice", "points": 1, "prompt": "?",
      "options": {"A": "a", "B": "b"}, "answer": "A"}, "items[0].id"),
    ({"id": "x", "kind": "text", "points": 1, "rubric": "nope"}, "items[0].rubric"),
])
def test_assignment_mistakes_are_422_naming_the_field(client, item, field):
    resp = client.post("/api/v1/assignments", json={**ASSIGNMENT, "items": [item]})
    body = resp.get_json()
    assert resp.status_code == 422, body
    assert body["field"] == field
    assert "/rubrics/" not in body["message"]  # no server paths


def test_an_import_the_grader_cannot_provide_is_422_naming_limits_imports(client):
    item = {"id": "x", "kind": "code", "points": 1, "problem": "softmax",
            "limits": {"imports": ["no_such_module_here"]}}
    resp = client.post("/api/v1/assignments", json={**ASSIGNMENT, "items": [item]})
    body = resp.get_json()
    assert resp.status_code == 422, body
    assert body["field"] == "items[0]"
    assert "limits.imports: no package provides the module 'no_such_module_here'" in \
        body["message"]
    allowed = {**item, "limits": {"imports": ["scipy"]}}
    resp = client.post("/api/v1/assignments", json={**ASSIGNMENT, "items": [allowed]})
    assert resp.status_code == 201, resp.get_json()


def test_built_in_rubrics_can_be_tried(client):
    model = (EXAMPLES / "quadratic_cost_model_answer.txt").read_text()
    resp = client.post("/api/v1/rubrics/seed000-q5-quadratic-cost/trial",
                       json={"responses": [{"text": model, "mark": 5}, {"text": "no", "mark": 0}]})
    assert resp.status_code == 200
    assert resp.get_json()["agreement"]["exact_agreement"] == 1.0
    assert client.post("/api/v1/rubrics/nope/trial",
                       json={"responses": [{"text": "x", "mark": 0}]}).status_code == 404


def test_hidden_tests_setting_is_only_for_code_items(client):
    item = {"id": "t", "kind": "text", "points": 1, "rubric": "seed000-q5-quadratic-cost",
            "hidden_tests": "after_due_date"}
    resp = client.post("/api/v1/assignments", json={**ASSIGNMENT, "items": [item]})
    assert (resp.status_code, resp.get_json()["field"]) == (422, "items[0].hidden_tests")
