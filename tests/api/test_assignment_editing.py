"""Issue 14.4: built-in assignments are read-only and can be copied into a course; PATCH takes a
JSON Merge Patch (RFC 7386) while PUT stays a full replacement; an empty submission is 422."""
import pytest

MERGE = "application/merge-patch+json"
QUIZ = {"id": "quiz", "title": "Quiz", "description": "two items", "due_at": "2031-01-01T00:00:00Z",
        "items": [
            {"id": "pick", "kind": "choice", "points": 1, "prompt": "Which?",
             "options": {"A": "this", "B": "that"}, "answer": "A"},
            {"id": "sdpa", "kind": "code", "points": 10,
             "problem": "scaled_dot_product_attention"}]}


def patch(client, path, body, content_type=MERGE):
    import json

    return client.patch(path, data=json.dumps(body), content_type=content_type)


@pytest.mark.parametrize("method,body", [
    ("PUT", {"title": "renamed"}),
    ("PUT", {**QUIZ, "id": "attention-basics"}),
    ("PATCH", {"title": "renamed"}),
])
def test_built_in_assignments_are_read_only_and_say_how_to_copy(client, method, body):
    resp = client.open("/api/v1/assignments/attention-basics", method=method, json=body)
    error = resp.get_json()
    assert resp.status_code == 405 and resp.headers["Allow"] == "GET"
    assert (error["code"], error["field"]) == ("read_only_assignment", "assignment_id")
    assert "built-in" in error["message"]
    assert "POST /api/v1/assignments/attention-basics/copy" in error["message"]
    assert client.get("/api/v1/assignments/attention-basics").status_code == 200


def test_a_copy_of_a_built_in_is_an_editable_course_assignment(client):
    builtin = client.get("/api/v1/assignments/attention-basics").get_json()
    resp = client.post("/api/v1/assignments/attention-basics/copy", json={"id": "my-basics"})
    assert resp.status_code == 201, resp.get_json()
    copy = resp.get_json()
    assert resp.headers["Location"].endswith("/api/v1/assignments/my-basics")
    assert (copy["id"], copy["version"], copy["title"]) == ("my-basics", 1, builtin["title"])
    assert [(i["id"], i["kind"], i["points"]) for i in copy["items"]] == [
        (i["id"], i["kind"], i["points"]) for i in builtin["items"]]
    # the copy grades like the original: B is the key of no-positions (1 point)
    sid = client.post("/api/v1/assignments/my-basics/submissions", json={
        "learner_id": "amy", "responses": {"no-positions": {"choice": "B"}}}).get_json()["id"]
    graded = client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()
    assert (graded["score"], graded["max_score"]) == (1.0, 16.0)
    edited = patch(client, "/api/v1/assignments/my-basics", {"title": "Mine"}).get_json()
    assert (edited["title"], edited["version"]) == ("Mine", 2)
    titled = client.post("/api/v1/assignments/my-basics/copy",
                         json={"id": "mine-again", "title": "Again"}).get_json()
    assert (titled["title"], len(titled["items"])) == ("Again", 3)


@pytest.mark.parametrize("new_id,status,code", [
    ("attention-code", 409, "conflict"), ("my-basics", 409, "conflict"),
    ("bad id!", 422, "validation_error")])
def test_copy_to_a_taken_or_bad_id_is_refused(client, new_id, status, code):
    client.post("/api/v1/assignments/attention-basics/copy", json={"id": "my-basics"})
    resp = client.post("/api/v1/assignments/attention-basics/copy", json={"id": new_id})
    assert (resp.status_code, resp.get_json()["code"], resp.get_json()["field"]) == (
        status, code, "id")


def test_copy_of_an_unknown_assignment_is_404(client):
    resp = client.post("/api/v1/assignments/nope/copy", json={"id": "x"})
    assert (resp.status_code, resp.get_json()["code"]) == (404, "assignment_not_found")


def test_patch_changes_only_the_fields_given(client):
    assert client.post("/api/v1/assignments", json=QUIZ).status_code == 201
    resp = patch(client, "/api/v1/assignments/quiz", {"title": "renamed"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert (body["title"], body["version"], body["description"]) == ("renamed", 2, "two items")
    assert body["due_at"].startswith("2031-01-01") and [i["id"] for i in body["items"]] == [
        "pick", "sdpa"]
    # null removes an optional field; plain application/json is accepted too
    body = patch(client, "/api/v1/assignments/quiz", {"due_at": None},
                 content_type="application/json").get_json()
    assert (body["due_at"], body["version"], body["title"]) == (None, 3, "renamed")
    # a list is replaced as a whole (RFC 7386)
    body = patch(client, "/api/v1/assignments/quiz", {"items": QUIZ["items"][:1]}).get_json()
    assert [(i["id"], i["points"]) for i in body["items"]] == [("pick", 1.0)]
    assert body["max_score"] == 1.0


@pytest.mark.parametrize("body,field", [
    ({"id": "other"}, "id"),
    ({"title": None}, "title"),
    ({"items": []}, "items"),
    ({"titel": "typo"}, "titel"),
    ({"items": [{"id": "x", "kind": "choice", "points": 1}]}, "items[0]"),
])
def test_patch_that_leaves_an_invalid_assignment_is_422(client, body, field):
    client.post("/api/v1/assignments", json=QUIZ)
    resp = patch(client, "/api/v1/assignments/quiz", body)
    assert resp.status_code == 422, resp.get_json()
    assert resp.get_json()["field"].startswith(field)
    assert client.get("/api/v1/assignments/quiz").get_json()["version"] == 1  # nothing stored


@pytest.mark.parametrize("name", ["title", "items"])
def test_patch_removing_a_required_field_says_it_cannot_be_removed(client, name):
    client.post("/api/v1/assignments", json=QUIZ)
    resp = patch(client, "/api/v1/assignments/quiz", {name: None})
    assert (resp.status_code, resp.get_json()["field"]) == (422, name)
    assert resp.get_json()["message"] == (
        f"{name}: cannot be removed (null in a JSON Merge Patch removes a field, and every "
        f"assignment has a {name}); send a new value instead.")


def test_patch_of_an_unknown_assignment_is_404_and_other_types_415(client):
    assert patch(client, "/api/v1/assignments/nope", {"title": "x"}).status_code == 404
    client.post("/api/v1/assignments", json=QUIZ)
    resp = client.patch("/api/v1/assignments/quiz", data="title=x", content_type="text/plain")
    assert resp.status_code == 415


def test_put_stays_a_full_replacement_and_points_to_patch(client):
    client.post("/api/v1/assignments", json=QUIZ)
    resp = client.put("/api/v1/assignments/quiz", json={"title": "renamed"})
    error = resp.get_json()
    assert resp.status_code == 422 and error["field"] in ("id", "items")
    assert "PATCH" in error["message"]
    replaced = client.put("/api/v1/assignments/quiz", json={
        "id": "quiz", "title": "T", "items": QUIZ["items"][1:]}).get_json()
    # fields left out of a PUT take their defaults: no description, no due date
    assert (replaced["description"], replaced["due_at"], replaced["version"]) == ("", None, 2)


def test_a_submission_without_responses_is_422(client):
    resp = client.post("/api/v1/assignments/attention-basics/submissions",
                       json={"learner_id": "amy", "responses": {}})
    error = resp.get_json()
    assert (resp.status_code, error["field"]) == (422, "responses")
    assert "at least one response" in error["message"]
    batch = client.post("/api/v1/assignments/attention-basics/submissions/batch", json={
        "submissions": [{"learner_id": "amy", "responses": {}},
                        {"learner_id": "bob", "responses": {"no-positions": {"choice": "B"}}}]})
    first, second = batch.get_json()["submissions"]
    assert first["error"]["field"] == "submissions[0].responses" and second["status"] == "queued"
