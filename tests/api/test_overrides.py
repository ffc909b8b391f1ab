"""Issue 26.2: the instructor decides the grade. An override sets one item's score with a
comment: the learner sees it, regrades keep it (their report says what the tests would give),
webhooks and the gradebook get it, and every decision is in the submission's audit list (who,
when).

The assignment: a choice item (2 points, key B) and a text item scored by a built-in rubric (5
points). The learner answers A (0 of 2) and leaves the text blank (0 of 5): 0 of 7."""
import pytest

from tests.api.test_webhooks import Receiver

ITEMS = [{"id": "pick", "kind": "choice", "points": 2, "prompt": "Scores are divided by",
          "options": {"A": "d_k", "B": "sqrt(d_k)"}, "answer": "B"},
         {"id": "cost", "kind": "text", "points": 5, "rubric": "seed000-q5-quadratic-cost"}]


@pytest.fixture
def receiver():
    receiver = Receiver(failures=0)
    yield receiver
    receiver.close()


@pytest.fixture
def graded_submission(client, receiver):
    doc = {"id": "ov", "title": "Overrides", "published": True, "items": ITEMS}
    assert client.post("/api/v1/assignments", json=doc).status_code == 201
    sid = client.post("/api/v1/assignments/ov/submissions", json={
        "learner_id": "amy", "responses": {"pick": {"choice": "A"}},
        "callback_url": receiver.url}).get_json()["id"]
    result = client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()
    assert (result["status"], result["score"]) == ("graded", 0.0)
    receiver.wait_for(1)  # submission.graded
    return sid


def override(client, sid, item_id, score, comment=""):
    return client.post(f"/api/v1/submissions/{sid}/overrides",
                       json={"item_id": item_id, "score": score, "comment": comment})


def test_an_override_sets_the_items_score_and_the_learner_reads_why(client, graded_submission,
                                                                   receiver):
    sid = graded_submission
    resp = override(client, sid, "pick", 1.5, "Your working shows the right idea.")
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert (body["score"], body["max_score"]) == (1.5, 7.0)
    [decision] = body["in_force"]
    assert (decision["item_id"], decision["score"], decision["previous_score"],
            decision["engine_score"], decision["by"]) == ("pick", 1.5, 0.0, 0.0,
                                                          body["audit"][0]["by"])
    assert decision["by"].startswith("key:") and decision["at"]
    result = client.get(f"/api/v1/submissions/{sid}").get_json()
    pick = result["items"][0]
    assert result["score"] == 1.5 and pick["score"] == 1.5
    line = pick["tests"][-1]
    assert (line["name"], line["score"], line["tags"]) == ("Score set by your instructor", 1.5,
                                                          ["override"])
    assert "Your working shows the right idea." in line["output"]
    assert sum(t["score"] for t in pick["tests"]) == 1.5
    # the learner's own link shows it too
    token = client.post(f"/api/v1/submissions/{sid}/link").get_json()["token"]
    linked = client.get(f"/api/v1/results/{token}", headers={"Accept": "application/json"})
    assert "Your working shows the right idea." in linked.get_data(as_text=True)
    # webhooks: a regraded event with the new score, caused by the override
    receiver.wait_for(2)
    import json

    event = json.loads(receiver.requests[1][1])
    assert (event["type"], event["cause"], event["submission"]["score"],
            event["previous"]["score"]) == ("submission.regraded", "override", 1.5, 0.0)
    assert event["override"] == {"item_id": "pick", "score": 1.5,
                                 "comment": "Your working shows the right idea."}
    # the history has the override as a grading of its own
    history = client.get(f"/api/v1/submissions/{sid}/history").get_json()
    assert [(h["kind"], h["score"]) for h in history] == [("initial", 0.0), ("override", 1.5)]


def test_a_regrade_keeps_the_override_and_reports_what_the_tests_would_give(client,
                                                                            graded_submission):
    sid = graded_submission
    override(client, sid, "cost", 4, "Discussed in office hours.")
    # the key changes to A: the tests now give the choice 2 of 2; the override of the text stays
    patched = client.patch("/api/v1/assignments/ov", json={"items": [
        {**ITEMS[0], "answer": "A"}, ITEMS[1]]})
    assert patched.status_code == 200
    for dry_run in (True, False):
        run = client.post("/api/v1/assignments/ov/regrades", json={"dry_run": dry_run})
        report = client.get(run.headers["Location"] + "?wait=20").get_json()
        [entry] = report["report"]
        assert (entry["old_score"], entry["new_score"], entry["difference"]) == (4.0, 6.0, 2.0)
        assert entry["overrides"] == [{"item_id": "cost", "score": 4.0, "engine_score": 0.0}]
        assert entry["changed"] == [{"item_id": "pick", "old": "key B", "new": "key A"}]
    result = client.get(f"/api/v1/submissions/{sid}").get_json()
    assert [i["score"] for i in result["items"]] == [2.0, 4.0]


def test_removing_an_override_brings_back_the_tests_score_and_is_audited(client,
                                                                         graded_submission):
    sid = graded_submission
    override(client, sid, "pick", 2, "first")
    override(client, sid, "pick", 1, "second thoughts")
    removed = client.delete(f"/api/v1/submissions/{sid}/overrides/pick")
    assert removed.status_code == 200
    body = removed.get_json()
    assert (body["score"], body["in_force"]) == (0.0, [])
    assert [(a["score"], a["previous_score"], a["comment"]) for a in body["audit"]] == [
        (2.0, 0.0, "first"), (1.0, 2.0, "second thoughts"), (None, 1.0, "")]
    assert client.get(f"/api/v1/submissions/{sid}").get_json()["items"][0]["tests"][-1][
        "tags"] == ["choice"]
    assert client.get(f"/api/v1/submissions/{sid}/overrides").get_json() == body


@pytest.mark.parametrize("payload,status,field", [
    ({"item_id": "pick", "score": 2.5}, 422, "score"),
    ({"item_id": "pick", "score": -1}, 422, "score"),
    ({"item_id": "nope", "score": 1}, 404, "item_id"),
    ({"item_id": "pick", "score": 1, "comment": "x" * 2001}, 422, "comment"),
    ({"item_id": "pick"}, 422, "score")])
def test_a_refused_override_says_why_and_changes_nothing(client, graded_submission, payload,
                                                         status, field):
    sid = graded_submission
    resp = client.post(f"/api/v1/submissions/{sid}/overrides", json=payload)
    assert (resp.status_code, resp.get_json()["field"]) == (status, field), resp.get_json()
    assert client.get(f"/api/v1/submissions/{sid}").get_json()["score"] == 0.0
    assert client.get(f"/api/v1/submissions/{sid}/overrides").get_json()["audit"] == []


def test_only_a_graded_submission_is_overridden(app, client):
    store = app.extensions["grader"].store
    row, _ = store.create_submission("attention-basics", "bo", {"no-positions": {"choice": "B"}},
                                     course_id="local")
    store.start(row.id)
    store.fail(row.id, "infrastructure fault after 3 attempt(s): sandbox unavailable")
    resp = override(client, row.id, "no-positions", 1)
    assert (resp.status_code, resp.get_json()["code"]) == (409, "not_graded")


def test_lms_keys_cannot_override(app, client, graded_submission):
    _row, lms_key = app.extensions["grader"].store.courses.create_key("lms", "local")
    resp = app.test_client().post(f"/api/v1/submissions/{graded_submission}/overrides",
                                  json={"item_id": "pick", "score": 2},
                                  headers={"Authorization": f"Bearer {lms_key}"})
    assert resp.status_code == 403


def test_an_override_stored_while_a_regrade_grades_is_kept_by_it(app, client,
                                                                 graded_submission):
    """The regrade computes new results for seconds, then stores them: what it stores is
    adjusted with the overrides in force at that moment, under the lock overrides take."""
    from grader.grading.adjustments import Override, adjust, totals

    store = app.extensions["grader"].store
    sid = graded_submission
    fresh = store.get(sid).results  # the regrade's results, computed before the override
    override(client, sid, "cost", 3, "late decision")

    def adjusted(items, overrides):
        out = adjust(items, None, {k: Override(k, r.score, r.comment)
                                   for k, r in overrides.items()})
        return (out, *totals(out))

    assert store.apply_regrade(sid, 0.0, 7.0, fresh, {}, adjust=adjusted)
    assert store.get(sid).score == 3.0
    assert [r.trigger for r in store.history(sid)] == ["initial", "override", "regrade"]
