"""Issue 26.1: a changed rubric regrades. ``<id>@latest`` follows every new version (the next
grading and the next regrade use it, no edit of the assignment); ``<id>@<n>`` pins version n;
a bare ``<id>`` pins the newest version when the assignment is saved, as it always did, so every
stored assignment and every existing request keeps its meaning. ``GET /assignments/<id>`` shows
the version each item uses and the regrade says which versions it applies, old -> new.

Scores by hand: the item has 4 points. Rubric v1 has 2 criteria of 1 point (patterns,
subspaces); v2 adds a third (concatenated), 3 points. The answer below meets patterns and
subspaces only: v1 2/2 -> 4 points; v2 2 of 3 plus the default base credit for an on-topic
answer (30 % of the point its criteria did not award: 0.3) = 2.3/3 -> 3.0667 points."""
import pytest

from tests.api.test_instructor_flow import RUBRIC_V1, RUBRIC_V2, upload

ANSWER = {"why": {"text": "Several heads learn different patterns, each in its own subspace."}}


def make(client, ref, assignment_id="hw-v"):
    doc = {"id": assignment_id, "title": "Heads", "published": True,
           "items": [{"id": "why", "kind": "text", "points": 4, "rubric": ref}]}
    resp = client.post("/api/v1/assignments", json=doc)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def graded(client, assignment_id="hw-v", learner="amy"):
    sid = client.post(f"/api/v1/assignments/{assignment_id}/submissions",
                      json={"learner_id": learner, "responses": ANSWER}).get_json()["id"]
    return client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()


def regrade(client, dry_run, assignment_id="hw-v"):
    run = client.post(f"/api/v1/assignments/{assignment_id}/regrades", json={"dry_run": dry_run})
    report = client.get(run.headers["Location"] + "?wait=20").get_json()
    assert report["status"] == "done", report
    return report


def rubric_version(client, assignment_id="hw-v"):
    return client.get(f"/api/v1/assignments/{assignment_id}").get_json()["items"][0][
        "rubric_version"]


def test_latest_follows_a_new_version_into_gradings_and_regrades(client):
    upload(client, RUBRIC_V1)
    made = make(client, "heads-why@latest")
    assert made["items"][0]["rubric_version"] == {"rubric_id": "heads-why", "version": 1,
                                                  "follows": "latest"}
    first = graded(client)
    assert first["score"] == 4.0
    upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    assert rubric_version(client) == {"rubric_id": "heads-why", "version": 2, "follows": "latest"}
    dry = regrade(client, True)
    [entry] = dry["report"]
    assert (entry["old_score"], entry["new_score"], entry["difference"]) == (4.0, 3.0667, -0.9333)
    assert entry["changed"] == [{"item_id": "why", "old": "heads-why v1", "new": "heads-why v2"}]
    [item] = dry["versions"]["items"]
    assert (item["applies"], item["follows"], item["was"], item["changes"]) == (
        "heads-why v2", "latest", [{"version": "heads-why v1", "submissions": 1}], 1)
    assert client.get(f"/api/v1/submissions/{first['id']}").get_json()["score"] == 4.0
    regrade(client, False)
    assert client.get(f"/api/v1/submissions/{first['id']}").get_json()["score"] == 3.0667
    history = client.get(f"/api/v1/submissions/{first['id']}/history").get_json()
    assert [h["versions"]["items"]["why"]["rubric_version"] for h in history] == [1, 2]
    # a new submission is graded with version 2 at once
    assert graded(client, learner="bo")["score"] == 3.0667


def test_a_bare_id_pins_the_version_of_the_save_as_before(client):
    upload(client, RUBRIC_V1)
    make(client, "heads-why")
    first = graded(client)
    upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    assert rubric_version(client) == {"rubric_id": "heads-why", "version": 1, "follows": "pinned"}
    dry = regrade(client, True)
    assert (dry["report"][0]["difference"], "changed" in dry["report"][0]) == (0.0, False)
    assert dry["versions"]["items"][0]["applies"] == "heads-why v1"
    assert graded(client, learner="bo")["score"] == first["score"] == 4.0


def test_an_explicit_version_is_pinned_even_when_newer_ones_exist(client):
    upload(client, RUBRIC_V1)
    upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    make(client, "heads-why@1")
    assert rubric_version(client) == {"rubric_id": "heads-why", "version": 1, "follows": "pinned"}
    assert graded(client)["score"] == 4.0
    make(client, "heads-why@2", "hw-two")
    assert graded(client, "hw-two")["score"] == 3.0667


def test_an_assignment_stored_before_references_existed_keeps_its_pin(app, client):
    """What main stored for ``rubric: heads-why``: the rubric inlined with its version."""
    upload(client, RUBRIC_V1)
    store = app.extensions["grader"].store
    record = store.content.rubric("local", "heads-why")
    store.content.add_assignment_version("local", "old-hw", {
        "id": "old-hw", "title": "Old", "description": "", "due_at": None,
        "callback_url": None, "items": [{"id": "why", "kind": "text", "points": 4, "rubric": {
            **record.document, "id": "heads-why", "version": 1}}]})
    upload(client, RUBRIC_V2, "put", "/api/v1/rubrics/heads-why")
    view = client.get("/api/v1/assignments/old-hw").get_json()
    assert view["published"] is True  # stored before drafts existed: published
    assert view["items"][0]["rubric_version"] == {"rubric_id": "heads-why", "version": 1,
                                                  "follows": "pinned"}
    assert graded(client, "old-hw")["score"] == 4.0


@pytest.mark.parametrize("ref,message", [
    ("heads-why@9", "the course's rubric 'heads-why' has no version 9 (its versions: 1)"),
    ("heads-why@0", "after '@' comes a version number"),
    ("heads-why@newest", "after '@' comes a version number"),
    ("heads why@1", "a rubric id is 1-100 of letters"),
    ("nobody@latest", "'nobody' is neither a rubric of this course nor a built-in rubric")])
def test_a_reference_that_names_nothing_is_422_at_its_field(client, ref, message):
    upload(client, RUBRIC_V1)
    resp = client.post("/api/v1/assignments", json={
        "id": "bad", "title": "Bad", "items": [{"id": "why", "kind": "text", "points": 4,
                                                "rubric": ref}]})
    body = resp.get_json()
    assert (resp.status_code, body["field"]) == (422, "items[0].rubric"), body
    assert message in body["message"]


def test_a_built_in_rubric_reads_its_file_and_has_one_version(client):
    builtin = "seed000-q5-quadratic-cost"
    for ref in (builtin, f"{builtin}@latest", f"{builtin}@1"):
        made = make(client, ref, f"b-{len(ref)}")
        assert made["items"][0]["rubric_version"] == {"rubric_id": builtin, "version": 1,
                                                      "follows": "latest"}
    resp = client.post("/api/v1/assignments", json={
        "id": "b-bad", "title": "B", "items": [{"id": "why", "kind": "text", "points": 4,
                                                "rubric": f"{builtin}@2"}]})
    assert resp.status_code == 422
    assert "has one version, 1 (its file)" in resp.get_json()["message"]
