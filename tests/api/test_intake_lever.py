"""The ``intake`` lever (grader/levers.py): a submission POST and GET answer exactly as without
it (status, body, headers), with the statements counted both ways."""
from __future__ import annotations

import pytest
from sqlalchemy import event

from tests.conftest import example, instructor_client

INTAKE = "/api/v1/assignments/attention-basics/submissions"
REQUEST_ID = {"X-Request-ID": "same-request-id"}  # the same id both ways: headers compared whole

#: A graded result with what the GET's view rewrites: a seed kept for regrades (never shown),
#: an ``after_due_date`` test, timings.
RESULTS = [{
    "item_id": "sdpa", "kind": "code", "score": 8.0, "max_score": 10.0, "status": "graded",
    "output": "Passed 1 of 2 tests", "tags": [], "visibility": "visible",
    "extra_data": {"seed": 12345, "sandbox_seconds": 0.25, "diagnosis": "divided by d_k"},
    "tests": [
        {"name": "shape", "score": 2.0, "max_score": 2.0, "status": "passed", "output": "ok",
         "visibility": "visible", "tags": ["shape"], "extra_data": {}},
        {"name": "hidden values", "score": 0.0, "max_score": 8.0, "status": "failed",
         "output": "scores divided by d_k instead of sqrt(d_k)", "visibility": "after_due_date",
         "tags": ["diagnosis:dk"], "extra_data": {"evidence": [1, 2]}},
    ]}]


@pytest.fixture(params=["sqlite", "postgresql"])
def lever_app(request, embedded_config):
    """The embedded default's app on SQLite and on PostgreSQL (the lever's Core statements run
    on the store's AUTOCOMMIT engine there)."""
    from grader.app import close_app, create_app

    config = dict(embedded_config)
    if request.param == "postgresql":
        config["DATABASE_URL"] = request.getfixturevalue("postgres_url")
    app = create_app(config)
    yield app
    close_app(app)


@pytest.fixture
def lever_client(lever_app):
    return instructor_client(lever_app)


@pytest.fixture
def statements(lever_app):
    """Every statement the app's store sends from this thread (the test client's requests
    run on it; the grading threads' statements are left out), in order."""
    import threading

    sent: list[str] = []
    here = threading.current_thread()
    event.listen(lever_app.extensions["grader"].store.engine, "before_cursor_execute",
                 lambda _conn, _cursor, statement, *_rest:
                 threading.current_thread() is here and sent.append(statement))
    return sent


def _answer(response, submission_id: str | None = None) -> tuple:
    """(status, body, headers) with the new submission's id and receipt time written as
    placeholders (they differ from post to post, the rest must not)."""
    body = response.get_data(as_text=True)
    headers = sorted(response.headers.items())
    data = response.get_json(silent=True) or {}
    for value, name in ((submission_id or data.get("id"), "<id>"),
                        (data.get("received_at"), "<received_at>")):
        if isinstance(value, str):
            body = body.replace(value, name)
            headers = [(k, v.replace(value, name)) for k, v in headers]
    return response.status_code, body, headers


def _both(monkeypatch, call) -> list:
    answers = []
    for levers in ("none", "intake"):
        monkeypatch.setenv("CPU_LEVERS", levers)
        answers.append(call())
    return answers


@pytest.mark.parametrize("body, headers", [
    (example("submission_correct.json"), {}),
    (example("submission_text.json"), {"Idempotency-Key": None}),  # a key of its own per post
    ({"learner_id": "amy", "responses": {"no-such-item": {"text": "x"}}}, {}),  # 404
    ({"learner_id": "amy", "responses": {"sdpa": {"text": "x"}}}, {}),  # 422
    ({"learner_id": "amy"}, {}),  # 422 (schema)
], ids=["created", "idempotency-key", "unknown-item", "wrong-shape", "no-responses"])
def test_a_post_answers_the_same_with_and_without_the_lever(lever_client, monkeypatch, body,
                                                            headers):
    counter = iter(range(2))

    def post():
        sent = dict(REQUEST_ID)
        if "Idempotency-Key" in headers:
            sent["Idempotency-Key"] = f"key-{next(counter)}"
        return _answer(lever_client.post(INTAKE, json=body, headers=sent))

    off, on = _both(monkeypatch, post)
    assert on == off
    assert off[0] in (202, 404, 422)


def test_an_idempotent_replay_and_a_conflict_answer_the_same(lever_app, lever_client,
                                                             monkeypatch):
    # not graded meanwhile: a replay answers the submission's status of the moment
    monkeypatch.setattr(lever_app.extensions["grader"].dispatcher, "enqueue",
                        lambda _submission_id: None)
    body = example("submission_text.json")
    first = lever_client.post(INTAKE, json=body, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 202
    sid = first.get_json()["id"]
    replays = _both(monkeypatch, lambda: _answer(lever_client.post(
        INTAKE, json=body, headers={"Idempotency-Key": "k1", **REQUEST_ID}), sid))
    assert replays[0] == replays[1] and replays[0][0] == 200
    other = {**body, "learner_id": "someone-else"}
    conflicts = _both(monkeypatch, lambda: _answer(lever_client.post(
        INTAKE, json=other, headers={"Idempotency-Key": "k1", **REQUEST_ID}), sid))
    assert conflicts[0] == conflicts[1] and conflicts[0][0] == 409


def test_the_stored_row_is_the_same_with_and_without_the_lever(lever_app, lever_client,
                                                               monkeypatch):
    from grader.store.models import Submission

    store = lever_app.extensions["grader"].store
    body = {**example("submission_correct.json"), "callback_url": "https://lms.example/hook"}
    rows = []
    for levers in ("none", "intake"):
        monkeypatch.setenv("CPU_LEVERS", levers)
        sid = lever_client.post(INTAKE, json=body).get_json()["id"]
        row = store.get(sid)
        rows.append({c.key: getattr(row, c.key) for c in Submission.__table__.c
                     if c.key not in ("id", "received_at", "queued_at", "status", "started_at",
                                      "finished_at", "attempts", "score", "max_score",
                                      "results", "failure_reason")})  # (grading may start)
        assert row.received_at == row.queued_at and row.received_at.tzinfo is not None
    assert rows[0] == rows[1]
    assert rows[1]["callback_url"] == "https://lms.example/hook"
    assert rows[1]["responses"] == body["responses"]


def test_a_post_sends_one_insert_either_way_and_one_more_with_a_key(lever_client, monkeypatch,
                                                                    statements):
    counted = {}
    for levers in ("none", "intake"):
        monkeypatch.setenv("CPU_LEVERS", levers)
        for key in (None, f"key-{levers}"):
            statements.clear()
            headers = {"Idempotency-Key": key} if key else {}
            response = lever_client.post(INTAKE, json=example("submission_text.json"),
                                         headers=headers)
            assert response.status_code == 202
            inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT")]
            counted[levers, key is not None] = [s.split("(")[0].split()[-1] for s in inserts]
    assert counted["none", False] == counted["intake", False] == ["submissions"]
    assert counted["none", True] == counted["intake", True] == ["submissions",
                                                                "idempotency_keys"]


def _stored(store, status: str, course_id: str = "local") -> str:
    sid = store.create_submission("attention-basics", "amy", {"sdpa": example(
        "submission_correct.json")["responses"]["sdpa"]}, course_id=course_id)[0].id
    if status in ("running", "graded", "failed"):
        store.start(sid)
    if status == "graded":
        store.finish(sid, 8.0, 16.0, RESULTS)
    elif status == "failed":
        store.fail(sid, "sandbox_unavailable: no bubblewrap")
    return sid


@pytest.mark.parametrize("status", ["queued", "running", "graded", "failed"])
def test_a_get_answers_the_same_with_and_without_the_lever(lever_app, lever_client,
                                                           monkeypatch, statements, status):
    store = lever_app.extensions["grader"].store
    sid = _stored(store, status)
    answers, sent = [], []
    lever_client.get(f"/api/v1/submissions/{sid}")  # first reads of what is cached after
    for levers in ("none", "intake"):
        monkeypatch.setenv("CPU_LEVERS", levers)
        statements.clear()
        answers.append(_answer(lever_client.get(f"/api/v1/submissions/{sid}?wait=0",
                                                headers=REQUEST_ID)))
        sent.append([s for s in statements if s.lstrip().upper().startswith("SELECT")])
    assert answers[0] == answers[1]
    status_code, body, _headers = answers[1]
    assert status_code == 200 and f'"status":"{status}"' in body.replace(" ", "")
    if status == "graded":
        assert "12345" not in body  # the seed is never shown, either way
        # no due date: the after_due_date test's details stay withheld, either way
        assert "Details of this test are shown after the due date." in body
        assert "scores divided by d_k" not in body and "divided by d_k" not in body
    # the same reads each way; the row's, with the lever, leaves the learner's responses unread
    assert len(sent[0]) == len(sent[1]) >= 1, sent
    assert "submissions.responses" in sent[0][0] and "responses" not in sent[1][0]
    assert sent[0][1:] == sent[1][1:]


def test_a_get_of_a_missing_or_another_courses_submission_is_the_same_404(
        lever_app, lever_client, monkeypatch):
    store = lever_app.extensions["grader"].store
    store.courses.create_course("other", "Other")
    theirs = _stored(store, "graded", course_id="other")
    for sid in (theirs, "no-such-id"):
        off, on = _both(monkeypatch, lambda: _answer(lever_client.get(
            f"/api/v1/submissions/{sid}?wait=0", headers=REQUEST_ID)))
        assert on == off and off[0] == 404
        assert sid in off[1] and "submission_not_found" in off[1]


def test_a_long_poll_with_the_lever_answers_when_the_submission_is_final(lever_app,
                                                                         lever_client,
                                                                         monkeypatch):
    """The wait's re-reads go through the same row reader: a submission finished while the GET
    waits is answered graded, with the same body as read without the lever afterwards."""
    import threading

    store = lever_app.extensions["grader"].store
    wakeups = lever_app.extensions["grader_wakeups"]
    sid = _stored(store, "running")
    monkeypatch.setenv("CPU_LEVERS", "intake")

    def finish():
        store.finish(sid, 8.0, 16.0, RESULTS)
        wakeups.wake(sid)

    timer = threading.Timer(0.3, finish)
    timer.start()
    try:
        waited = _answer(lever_client.get(f"/api/v1/submissions/{sid}?wait=10",
                                          headers=REQUEST_ID))
    finally:
        timer.join()
    monkeypatch.setenv("CPU_LEVERS", "none")
    assert waited == _answer(lever_client.get(f"/api/v1/submissions/{sid}",
                                              headers=REQUEST_ID))
    assert '"status":"graded"' in waited[1].replace(" ", "")


def test_the_row_reader_reads_what_get_reads_but_the_responses(sql_store, monkeypatch):
    monkeypatch.setenv("CPU_LEVERS", "intake")
    sql_store.courses.create_course("c1", "C 1")
    sid = sql_store.create_submission("a", "amy", {"q": {"text": "x"}}, course_id="c1")[0].id
    sql_store.start(sid)
    sql_store.finish(sid, 8.0, 16.0, RESULTS)
    row, full = sql_store.get_shown(sid), sql_store.get(sid)
    from grader.store.models import Submission

    for column in Submission.__table__.c:
        if column.key != "responses":
            assert getattr(row, column.key) == getattr(full, column.key), column.key
    assert not hasattr(row, "responses")
    assert row.finished_at.tzinfo is not None and row.results == RESULTS
    assert sql_store.get_shown("no-such-id") is None
    monkeypatch.setenv("CPU_LEVERS", "none")
    assert sql_store.get_shown(sid).responses == {"q": {"text": "x"}}  # Store.get's object
