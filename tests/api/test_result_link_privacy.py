"""Red-team finding 7: the signed result link is opened by learners without a key, and its JSON
carried ``content_sha256``, ``attempts`` and ``extra_data`` with ``sandbox_seconds`` and
``grading_seconds``: learner code that sleeps could signal through them (a slow covert channel).
The link's JSON now has what the result page shows and no timing of the grading; the learner
page and its status endpoint show no grading time either; the REST API with a key keeps all."""
from __future__ import annotations

import re

from tests.conftest import example, wait_final

SUBMIT = "/api/v1/assignments/attention-basics/submissions"
#: Fields of the stored submission a learner's link never carries.
INTERNAL = {"content_sha256", "attempts", "started_at", "finished_at"}
TIMING_KEY = re.compile(r"seconds|time|duration|elapsed|_ms$|started|finished", re.I)


def keys_anywhere(value, found=None) -> set[str]:
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            keys_anywhere(inner, found)
    elif isinstance(value, list):
        for inner in value:
            keys_anywhere(inner, found)
    return found


def graded_with_link(client):
    sid = client.post(SUBMIT, json=example("submission_correct.json")).get_json()["id"]
    full = wait_final(lambda: client.get(f"/api/v1/submissions/{sid}").get_json())
    assert full["status"] == "graded", full
    link = client.post(f"/api/v1/submissions/{sid}/link").get_json()
    return sid, full, link


def test_the_links_json_has_no_internal_field_and_no_timing(client, anonymous):
    sid, full, link = graded_with_link(client)
    # the keyed view has them (the premise of the finding): code items time their run
    assert {"sandbox_seconds", "grading_seconds"} <= set(full["items"][0]["extra_data"])
    assert INTERNAL <= set(full)

    resp = anonymous.get(link["url"].replace("http://localhost", ""),
                         headers={"Accept": "application/json"})
    assert resp.status_code == 200
    linked = resp.get_json()
    # late: on time or late against the due date (a built-in assignment has none): no timing
    # of the grading, only the learner's own submission time against a date they know
    assert set(linked) == {"id", "assignment_id", "assignment_version", "learner_id", "status",
                           "received_at", "score", "max_score", "failure_reason", "late",
                           "items"}
    assert linked["late"] is None
    assert (linked["id"], linked["score"], linked["max_score"]) == (sid, 16.0, 16.0)
    keys = keys_anywhere(linked)
    assert not keys & INTERNAL
    assert not {k for k in keys if TIMING_KEY.search(k)}, keys
    # what the page draws is still there: the heatmaps of the code item and what its visible
    # examples printed (the correct SDPA prints nothing), the evidence of text
    sdpa, text = linked["items"][0], linked["items"][1]
    assert set(sdpa["extra_data"]) == {"pictures", "visible_output"}
    assert sdpa["extra_data"]["visible_output"] == ""
    assert sdpa["extra_data"]["pictures"] == full["items"][0]["extra_data"]["pictures"]
    assert all(set(t["extra_data"]) <= {"evidence"} for t in text["tests"])
    assert any(t["extra_data"].get("evidence") for t in text["tests"])
    # everything else of the items is as the keyed view has it
    assert [t["score"] for t in sdpa["tests"]] == [t["score"] for t in full["items"][0]["tests"]]
    assert sdpa["output"] == full["items"][0]["output"]


def test_an_api_client_sending_star_accept_gets_the_same_json(client, anonymous):
    _sid, _full, link = graded_with_link(client)
    path = link["url"].replace("http://localhost", "")
    star = anonymous.get(path, headers={"Accept": "*/*"}).get_json()
    assert star == anonymous.get(path, headers={"Accept": "application/json"}).get_json()
    assert "content_sha256" not in star


def test_the_keyed_api_still_has_everything(client):
    sid, full, _link = graded_with_link(client)
    assert full["attempts"] == 1 and len(full["content_sha256"]) == 64
    assert full["started_at"] and full["finished_at"]


def test_the_result_page_and_status_show_no_grading_time(app, client):

    sid, full, link = graded_with_link(client)
    browser = app.test_client()
    page = browser.get(link["url"].replace("http://localhost", ""),
                       headers={"Accept": "text/html"}).get_data(as_text=True)
    assert "Submitted " in page
    assert "graded " not in page.split("Submitted ", 1)[1].split("</p>", 1)[0]
    # a practice learner's own submission: the learner page, its result page and status JSON
    learn = browser.get("/learn/attention-basics")
    assert learn.status_code == 200
    token = re.search(r'name="csrf_token" value="([^"]+)"', learn.get_data(as_text=True))[1]
    posted = browser.post("/learn/attention-basics", data={
        "csrf_token": token, "response-no-positions": "B"}, headers={"Accept": "application/json"})
    assert posted.status_code == 202, posted.get_data(as_text=True)
    status = browser.get(posted.get_json()["status_url"] + "?wait=20").get_json()
    assert status["final"] is True
    assert set(status) == {"id", "status", "final", "result_html", "attempts_html"}
    fragment = status["result_html"]
    line = fragment.split("Submitted ", 1)[1].split("</p>", 1)[0]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.", line), line
    result = browser.get(posted.get_json()["result_url"]).get_data(as_text=True)
    assert re.search(r"Submitted \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.</p>", result)
