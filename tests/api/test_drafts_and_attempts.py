"""Issue 26.2: a new assignment is a draft until published (assignments stored before stay
published); which attempt counts (latest, best, best per item) is the assignment's and
grades.csv follows it, with one column per item, overrides and the late penalty, and a
``graded_at`` that moves when a regrade changes the score."""
import csv
import io

ITEMS = [{"id": "p", "kind": "choice", "points": 2, "prompt": "?", "options": {"A": "a",
                                                                                 "B": "b"},
          "answer": "A"},
         {"id": "q", "kind": "choice", "points": 3, "prompt": "?", "options": {"A": "a",
                                                                                 "B": "b"},
          "answer": "B"}]


def submit(client, responses, learner="amy", assignment_id="pol"):
    sid = client.post(f"/api/v1/assignments/{assignment_id}/submissions",
                      json={"learner_id": learner, "responses": responses}).get_json()["id"]
    return client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()


def table(client, assignment_id="pol", attempts="latest"):
    text = client.get(f"/api/v1/assignments/{assignment_id}/grades.csv?attempts={attempts}"
                      ).get_data(as_text=True)
    return list(csv.DictReader(io.StringIO(text)))


def test_a_new_assignment_is_a_draft_until_published(client):
    made = client.post("/api/v1/assignments", json={"id": "d", "title": "D", "items": ITEMS})
    assert made.get_json()["published"] is False
    listed = {a["id"]: a for a in client.get("/api/v1/assignments").get_json()}
    assert listed["d"]["published"] is False and listed["attention-basics"]["published"] is True
    # PUT without "published" keeps the state; PATCH publishes; PUT keeps it published
    put = client.put("/api/v1/assignments/d", json={"id": "d", "title": "D2", "items": ITEMS})
    assert put.get_json()["published"] is False
    assert client.patch("/api/v1/assignments/d", json={"published": True}).get_json()[
        "published"] is True
    put = client.put("/api/v1/assignments/d", json={"id": "d", "title": "D3", "items": ITEMS})
    assert (put.get_json()["published"], put.get_json()["version"]) == (True, 4)
    # a copy is a new assignment: a draft, unless asked
    copied = client.post("/api/v1/assignments/d/copy", json={"id": "d-copy"}).get_json()
    assert copied["published"] is False
    assert client.post("/api/v1/assignments/d/copy", json={"id": "d-live", "published": True}
                       ).get_json()["published"] is True


def test_latest_policy_csv_has_a_column_per_item_and_keeps_the_old_columns(client):
    client.post("/api/v1/assignments", json={"id": "pol", "title": "P", "items": ITEMS})
    submit(client, {"p": {"choice": "A"}, "q": {"choice": "B"}})   # 5
    last = submit(client, {"p": {"choice": "B"}, "q": {"choice": "B"}})  # 3
    [row] = table(client)
    assert list(row)[:7] == ["learner_id", "score", "max_score", "submitted_at", "graded_at",
                             "status", "submission_id"]
    assert (row["score"], row["max_score"], row["submission_id"], row["attempt_policy"],
            row["attempts"]) == ("3", "5", last["id"], "latest", "2")
    assert (row["p:score"], row["p:max_score"], row["q:score"], row["q:max_score"]) == (
        "0", "2", "3", "3")
    assert (row["p:override"], row["late"], row["late_penalty"]) == ("", "", "")
    assert len(table(client, attempts="all")) == 2


def test_best_and_best_per_item(client):
    client.post("/api/v1/assignments", json={"id": "pol", "title": "P", "items": ITEMS,
                                             "attempt_policy": "best"})
    first = submit(client, {"p": {"choice": "A"}, "q": {"choice": "A"}})   # 2 + 0
    second = submit(client, {"p": {"choice": "B"}, "q": {"choice": "B"}})  # 0 + 3
    submit(client, {"p": {"choice": "B"}, "q": {"choice": "A"}})           # 0 + 0
    [row] = table(client)
    assert (row["score"], row["submission_id"], row["attempt_policy"]) == ("3", second["id"],
                                                                           "best")
    client.patch("/api/v1/assignments/pol", json={"attempt_policy": "best_per_item"})
    [row] = table(client)
    assert (row["score"], row["p:score"], row["q:score"]) == ("5", "2", "3")
    assert row["counted_submissions"].split() == [second["id"], first["id"]]
    analytics = client.get("/api/v1/assignments/pol/analytics").get_json()
    assert (analytics["attempt_policy"], analytics["score"]["mean"]) == ("best_per_item", 5.0)


def test_graded_at_moves_only_when_a_regrade_or_override_changes_the_score(client):
    client.post("/api/v1/assignments", json={"id": "pol", "title": "P", "items": ITEMS})
    result = submit(client, {"p": {"choice": "A"}, "q": {"choice": "A"}})  # 2
    first = table(client)[0]["graded_at"]

    def regrade():
        run = client.post("/api/v1/assignments/pol/regrades", json={"dry_run": False})
        return client.get(run.headers["Location"] + "?wait=20").get_json()

    regrade()  # same key, same score: graded_at stays
    assert table(client)[0]["graded_at"] == first
    client.patch("/api/v1/assignments/pol", json={"items": [ITEMS[0], {**ITEMS[1],
                                                                        "answer": "A"}]})
    regrade()  # the key of q changes: 5, graded_at moves to the regrade
    moved = table(client)[0]
    history = client.get(f"/api/v1/submissions/{result['id']}/history").get_json()
    assert [h["score"] for h in history] == [2.0, 2.0, 5.0]
    assert moved["score"] == "5" and moved["graded_at"] == history[2]["created_at"] != first
    client.post(f"/api/v1/submissions/{result['id']}/overrides",
                json={"item_id": "q", "score": 1.5, "comment": "partly"})
    row = table(client)[0]
    history = client.get(f"/api/v1/submissions/{result['id']}/history").get_json()
    assert (row["score"], row["q:score"], row["q:override"]) == ("3.5", "1.5", "1.5")
    assert row["graded_at"] == history[3]["created_at"]
