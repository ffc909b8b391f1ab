"""Issue 26.2, late work: a course has a time zone (UTC when unset, so stored due dates keep
their meaning), a due date without an offset is read in it and answered with its offset; a late
policy (accept, a penalty per started day or a fixed one, refuse) and per-learner extensions;
results say on time or late, and how much the penalty took.

Both items are answered right (2 + 1 = 3 of 3 points). Penalties are of the points possible:
20 % is 0.6 points, shared by the items in proportion to their points (0.4 and 0.2)."""
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

ITEMS = [{"id": "a", "kind": "choice", "points": 2, "prompt": "1+1", "options": {"A": "2",
                                                                                   "B": "3"},
          "answer": "A"},
         {"id": "b", "kind": "choice", "points": 1, "prompt": "2+2", "options": {"A": "4",
                                                                                   "B": "5"},
          "answer": "A"}]
RIGHT = {"a": {"choice": "A"}, "b": {"choice": "A"}}


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def ago(**delta) -> datetime:
    return datetime.now(timezone.utc) - timedelta(**delta)


def make(client, due_at, late_policy=None, assignment_id="late"):
    doc = {"id": assignment_id, "title": "Late", "due_at": due_at, "published": True,
           "items": ITEMS}
    if late_policy:
        doc["late_policy"] = late_policy
    resp = client.post("/api/v1/assignments", json=doc)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def submit(client, learner="amy", assignment_id="late"):
    resp = client.post(f"/api/v1/assignments/{assignment_id}/submissions",
                       json={"learner_id": learner, "responses": RIGHT})
    if resp.status_code != 202:
        return resp
    return client.get(f"/api/v1/submissions/{resp.get_json()['id']}?wait=20").get_json()


def test_the_course_time_zone_reads_due_dates_without_an_offset(client):
    made = make(client, "2031-06-01T23:59:00")
    assert (made["due_at"], made["time_zone"]) == ("2031-06-01T23:59:00+00:00", "UTC")
    course = client.patch("/api/v1/course", json={"time_zone": "Europe/Berlin"})
    assert course.get_json()["time_zone"] == "Europe/Berlin"
    view = client.get("/api/v1/assignments/late").get_json()
    assert (view["due_at"], view["time_zone"]) == ("2031-06-01T23:59:00+02:00", "Europe/Berlin")
    # a due date written with an offset keeps it, shown in the course's zone
    make(client, "2031-06-01T23:59:00-04:00", assignment_id="late-ny")
    assert client.get("/api/v1/assignments/late-ny").get_json()["due_at"] == \
        "2031-06-02T05:59:00+02:00"
    assert client.patch("/api/v1/course", json={"time_zone": "Mars/Olympus"}).status_code == 422
    assert client.get("/api/v1/course").get_json()["time_zone"] == "Europe/Berlin"


def test_late_in_the_course_zone_and_not_in_utc(client):
    """Due an hour ago in Tokyo local time, written without an offset. Read as UTC (the old
    behaviour) it would be due in 8 hours and the submission on time."""
    client.patch("/api/v1/course", json={"time_zone": "Asia/Tokyo"})
    local = ago(hours=1).astimezone(ZoneInfo("Asia/Tokyo")).replace(tzinfo=None)
    make(client, iso(local), {"mode": "penalty_per_day", "percent": 10})
    result = submit(client)
    late = result["late"]
    assert (late["status"], late["days_late"], late["penalty_percent"]) == ("late", 1, 10.0)
    assert late["due_at"].endswith("+09:00")
    # 10 % of 3 points = 0.3: items 2 - 0.2, 1 - 0.1
    assert (result["score"], late["penalty_points"]) == (2.7, 0.3)
    assert [i["score"] for i in result["items"]] == [1.8, 0.9]


def test_a_penalty_per_started_day(client):
    make(client, iso(ago(days=1, hours=8)), {"mode": "penalty_per_day", "percent": 10})
    result = submit(client)
    # 1 day 8 hours late = 2 started days: 20 % of 3 = 0.6 points
    assert (result["late"]["days_late"], result["score"], result["late"]["penalty_points"]) == (
        2, 2.4, 0.6)
    assert [i["score"] for i in result["items"]] == [1.6, 0.8]
    line = result["items"][0]["tests"][-1]
    assert (line["name"], line["score"]) == ("Late penalty", -0.4)
    assert "2 days late" in line["output"]


def test_a_fixed_penalty_and_acceptance(client):
    make(client, iso(ago(days=6)), {"mode": "fixed_penalty", "percent": 25})
    fixed = submit(client)
    assert (fixed["score"], fixed["late"]["penalty_points"]) == (2.25, 0.75)
    make(client, iso(ago(days=6)), assignment_id="accepting")
    accepted = submit(client, assignment_id="accepting")
    assert (accepted["score"], accepted["late"]["status"], accepted["late"]["policy"]) == (
        3.0, "late", "accept")


def test_on_time_says_so(client):
    make(client, iso(ago(days=-3)), {"mode": "penalty_per_day", "percent": 10})
    result = submit(client)
    assert (result["score"], result["late"]["status"], result["late"]["penalty_points"]) == (
        3.0, "on_time", 0.0)


def test_refuse_turns_late_work_away_unless_the_learner_has_an_extension(client):
    make(client, iso(ago(hours=2)), {"mode": "refuse"})
    refused = submit(client)
    body = refused.get_json()
    assert (refused.status_code, body["code"], body["field"]) == (409, "past_due", "due_at")
    assert "does not accept late work" in body["message"]
    extension = client.post("/api/v1/assignments/late/extensions",
                            json={"learner_id": "amy", "due_at": iso(ago(days=-2))})
    assert extension.status_code == 200
    accepted = submit(client)
    assert (accepted["score"], accepted["late"]["status"], accepted["late"]["extended"]) == (
        3.0, "on_time", True)
    assert submit(client, learner="bo").status_code == 409  # bo has no extension
    listed = client.get("/api/v1/assignments/late/extensions").get_json()
    assert [e["learner_id"] for e in listed] == ["amy"]


def test_an_extension_lifts_the_penalty_at_the_next_regrade(client):
    make(client, iso(ago(days=2, hours=1)), {"mode": "penalty_per_day", "percent": 20})
    first = submit(client)
    assert first["score"] == 1.2  # 3 days late: 60 % of 3 = 1.8 taken
    client.post("/api/v1/assignments/late/extensions",
                json={"learner_id": "amy", "due_at": iso(ago(days=-1))})
    run = client.post("/api/v1/assignments/late/regrades", json={"dry_run": False})
    report = client.get(run.headers["Location"] + "?wait=20").get_json()
    assert report["report"][0]["new_score"] == 3.0
    regraded = client.get(f"/api/v1/submissions/{first['id']}").get_json()
    assert (regraded["score"], regraded["late"]["status"]) == (3.0, "on_time")
    csv = client.get("/api/v1/assignments/late/grades.csv").get_data(as_text=True)
    header, row = csv.strip().splitlines()
    values = dict(zip(header.split(","), row.split(",")))
    assert (values["late"], values["late_penalty"], values["score"]) == ("on time", "0", "3")
    removed = client.post("/api/v1/assignments/late/extensions",
                          json={"learner_id": "amy", "due_at": None})
    assert removed.status_code == 200
    assert client.get("/api/v1/assignments/late/extensions").get_json() == []


@pytest.mark.parametrize("policy,field", [
    ({"mode": "penalty_per_day"}, "late_policy.percent"),
    ({"mode": "later"}, "late_policy.mode"),
    ({"mode": "fixed_penalty", "percent": 150}, "late_policy.percent")])
def test_a_bad_late_policy_is_422_at_its_field(client, policy, field):
    resp = client.post("/api/v1/assignments", json={"id": "x", "title": "X", "items": ITEMS,
                                                    "late_policy": policy})
    assert (resp.status_code, resp.get_json()["field"]) == (422, field), resp.get_json()


def test_a_spent_idempotency_key_with_another_body_does_not_step_around_refuse(client):
    # issue 20.2: only a true replay (same key, same body) may skip a check; the key of a post
    # accepted before the due date, reused after it with other answers, is refused as late work
    make(client, iso(ago(days=-1)), {"mode": "refuse"})
    url, key = "/api/v1/assignments/late/submissions", {"Idempotency-Key": "amy-1"}
    body = {"learner_id": "amy", "responses": RIGHT}
    accepted = client.post(url, json=body, headers=key)
    assert accepted.status_code == 202
    patched = client.patch("/api/v1/assignments/late", json={"due_at": iso(ago(hours=1))},
                           content_type="application/merge-patch+json")
    assert patched.status_code == 200, patched.get_json()
    replay = client.post(url, json=body, headers=key)
    assert (replay.status_code, replay.get_json()["id"]) == (200, accepted.get_json()["id"])
    other = {"learner_id": "amy", "responses": {"a": {"choice": "B"}, "b": {"choice": "A"}}}
    refused = client.post(url, json=other, headers=key)
    assert (refused.status_code, refused.get_json()["code"]) == (409, "past_due")
    listed = client.get("/api/v1/assignments/late/grades.csv?attempts=all").get_data(as_text=True)
    assert listed.count("\namy,") == 1  # one attempt: the replay and the refusal made none


@pytest.mark.parametrize("due_at", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00",
                                    "0001-01-01T00:00:00"])
def test_a_due_date_at_the_calendars_edge_is_422_and_stores_nothing(client, due_at):
    # year 1 at +05:00 is year 0 in UTC, year 9999 at -05:00 is year 10000: no zone can show them
    doc = {"id": "edge", "title": "Edge", "due_at": due_at, "items": ITEMS}
    resp = client.post("/api/v1/assignments", json=doc)
    assert resp.status_code == 422 and resp.get_json()["field"] == "due_at"
    assert client.get("/api/v1/assignments/edge").status_code == 404
    make(client, iso(ago(days=-3)))
    patch = client.patch("/api/v1/assignments/late", json={"due_at": due_at})
    assert patch.status_code == 422 and patch.get_json()["field"] == "due_at"
    extension = client.post("/api/v1/assignments/late/extensions",
                            json={"learner_id": "amy", "due_at": due_at})
    assert extension.status_code == 422 and extension.get_json()["field"] == "due_at"
    assert client.get("/api/v1/assignments/late/extensions").get_json() == []
    assert client.get("/api/v1/assignments/late").status_code == 200


def test_a_stored_due_date_no_zone_can_show_is_shown_as_stored():
    from grader.deadlines import shown_due

    assert shown_due("0001-01-01T00:00:00+05:00", "Asia/Kolkata") == "0001-01-01T00:00:00+05:00"
    assert shown_due("2026-12-01T12:00:00+00:00", "Europe/Berlin") == "2026-12-01T13:00:00+01:00"
