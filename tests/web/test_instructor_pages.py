"""Issue 26.4 and 26.3 on the pages: an instructor signs in without an LMS (an instructor key, or
a one-time link printed by ``grader instructor-link``) under the rules of LTI sessions (a new
session at sign-in, CSRF-checked posts, the same cookie); drafts are for instructors; scores are
set by hand from the submission page; and every instructor page reads the store a fixed number
of times, whatever the class size (no query per learner or submission)."""
import re
from datetime import timedelta

import pytest
from sqlalchemy import event


PAGE = "/learn/attention-basics/instructor"


def token(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def sign_in(browser, key, next_url=PAGE):
    form = browser.get(f"/instructor/sign-in?next={next_url}")
    return browser.post("/instructor/sign-in", data={
        "csrf_token": token(form.get_data(as_text=True)), "key": key, "next": next_url})


@pytest.fixture
def browser(app):
    return app.test_client()


def test_the_instructor_view_offers_a_sign_in_instead_of_a_dead_end(browser):
    page = browser.get(PAGE)
    html = page.get_data(as_text=True)
    assert page.status_code == 401
    assert "Sign in as an instructor" in html and 'name="key"' in html
    assert f'name="next" value="{PAGE}"' in html


def test_an_instructor_key_signs_in_with_a_new_session(browser, instructor_key):
    form = browser.get(f"/instructor/sign-in?next={PAGE}")
    before = token(form.get_data(as_text=True))
    signed = browser.post("/instructor/sign-in",
                          data={"csrf_token": before, "key": instructor_key, "next": PAGE})
    assert (signed.status_code, signed.headers["Location"]) == (303, PAGE)
    cookie = signed.headers["Set-Cookie"]
    assert "grader_session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    view = browser.get(PAGE)
    assert view.status_code == 200 and "Instructor view:" in view.get_data(as_text=True)
    # the session began anew: the token of the form before signing in no longer works
    stale = browser.post(PAGE + "/regrades", data={"csrf_token": before, "dry_run": "1"})
    assert stale.status_code == 400


@pytest.mark.parametrize("which", ["lms", "wrong", "empty"])
def test_a_key_that_is_not_an_instructor_key_is_refused(app, browser, which):
    keys = {"lms": app.extensions["grader"].store.courses.create_key("lms", "local")[1],
            "wrong": "agk_000000000000_" + "x" * 43, "empty": ""}
    refused = sign_in(browser, keys[which])
    assert refused.status_code == 401
    assert "not a valid instructor key" in refused.get_data(as_text=True)
    assert browser.get(PAGE).status_code == 401


def test_the_sign_in_form_is_csrf_checked(browser, instructor_key):
    refused = browser.post("/instructor/sign-in", data={"key": instructor_key})
    assert refused.status_code == 400
    assert browser.get(PAGE).status_code == 401


@pytest.mark.parametrize("next_url,landing", [
    ("https://evil.example/", "/instructor"), ("//evil.example/x", "/instructor"),
    ("/learn/attention-code/instructor", "/learn/attention-code/instructor")])
def test_sign_in_returns_only_to_these_pages(browser, instructor_key, next_url, landing):
    assert sign_in(browser, instructor_key, next_url).headers["Location"] == landing


def test_a_printed_link_signs_in_once(app, browser):
    store = app.extensions["grader"].store
    secret = store.sign_ins.create("local", "attention-basics", timedelta(minutes=5), "Ada")
    url = f"/instructor/sign-in/{secret}"
    first = browser.get(url)  # a link preview or a mail scanner may GET it: nothing is used
    assert browser.get(url).status_code == first.status_code == 200
    html = first.get_data(as_text=True)
    assert "Sign in to local" in html
    signed = browser.post(url, data={"csrf_token": token(html)})
    assert (signed.status_code, signed.headers["Location"]) == (303, PAGE)
    assert "Ada" in browser.get(PAGE).get_data(as_text=True)
    assert app.test_client().get(url).status_code == 404  # used
    expired = store.sign_ins.create("local", None, timedelta(seconds=-1))
    assert app.test_client().get(f"/instructor/sign-in/{expired}").status_code == 404


def test_the_cli_prints_a_link_that_works(app, embedded_config, monkeypatch, capsys, browser):
    from grader.cli import main

    for name, value in embedded_config.items():
        monkeypatch.setenv(name, str(value))
    assert main(["instructor-link", "--course", "local", "--base-url", "http://host:9"]) == 0
    url = capsys.readouterr().out.strip()
    assert url.startswith("http://host:9/instructor/sign-in/")
    path = url.removeprefix("http://host:9")
    page = browser.get(path)
    signed = browser.post(path, data={"csrf_token": token(page.get_data(as_text=True))})
    assert signed.headers["Location"] == "/instructor"
    index = browser.get("/instructor").get_data(as_text=True)
    assert "attention-basics" in index
    assert main(["instructor-link", "--course", "nope"]) == 2


def test_drafts_are_for_instructors(app, client, browser, instructor_key):
    assert client.post("/api/v1/assignments/attention-basics/copy",
                       json={"id": "draft-1"}).get_json()["published"] is False
    learner = app.test_client()
    assert learner.get("/learn/draft-1").status_code == 404
    assert "draft-1" not in learner.get("/learn").get_data(as_text=True)
    sign_in(browser, instructor_key, "/learn/draft-1/instructor")
    assert browser.get("/learn/draft-1").status_code == 200  # the instructor tries it
    view = browser.get("/learn/draft-1/instructor").get_data(as_text=True)
    assert "<strong>Draft</strong>" in view
    published = browser.post("/learn/draft-1/instructor/publish",
                             data={"csrf_token": token(view), "published": "1"})
    assert published.status_code == 303
    assert learner.get("/learn/draft-1").status_code == 200
    assert "draft-1" in learner.get("/learn").get_data(as_text=True) or \
        "Attention basics" in learner.get("/learn").get_data(as_text=True)


def test_a_score_set_on_the_submission_page_reaches_the_learner(app, client, browser,
                                                                instructor_key):
    sid = client.post("/api/v1/assignments/attention-basics/submissions", json={
        "learner_id": "amy", "responses": {"no-positions": {"choice": "A"}}}).get_json()["id"]
    assert client.get(f"/api/v1/submissions/{sid}?wait=20").get_json()["score"] == 0.0
    sign_in(browser, instructor_key)
    url = f"{PAGE}/submissions/{sid}"
    page = browser.get(url).get_data(as_text=True)
    bad = browser.post(url + "/overrides", data={"csrf_token": token(page), "item_id":
                                                  "no-positions", "score": "two",
                                                  "action": "set"})
    assert bad.status_code == 422 and "must be a number" in bad.get_data(as_text=True)
    done = browser.post(url + "/overrides", data={
        "csrf_token": token(page), "item_id": "no-positions", "score": "1",
        "comment": "B and A are both defensible here.", "action": "set"})
    assert done.status_code == 303
    after = browser.get(url).get_data(as_text=True)
    assert "Instructor (key " in after and "B and A are both defensible here." in after
    audit = client.get(f"/api/v1/submissions/{sid}/overrides").get_json()["audit"]
    assert [(a["item_id"], a["score"], a["by"].startswith("instructor-key-")) for a in audit] \
        == [("no-positions", 1.0, True)]
    assert client.get(f"/api/v1/submissions/{sid}").get_json()["score"] == 1.0


def _graded_class(store, learners: int, assignment_id: str) -> None:
    """``learners`` graded submissions (two attempts each) stored directly: the pages read
    what is stored, so no grading is needed to count their queries."""
    for number in range(learners):
        for attempt in range(2):
            row, _ = store.create_submission(
                assignment_id, f"learner-{number}", {"no-positions": {"choice": "B"}},
                course_id="local")
            store.start(row.id)
            store.finish(row.id, 1.0 + attempt, 16.0, [
                {"item_id": "no-positions", "kind": "choice", "score": 1.0, "max_score": 1.0,
                 "tests": [{"name": "Selected option", "score": 1.0, "max_score": 1.0,
                            "status": "passed", "tags": ["choice"]}],
                 "extra_data": {"chosen": "B"}}])


def _queries(app, client, url) -> int:
    engine = app.extensions["grader"].store.engine
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        response = client.get(url)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return len([s for s in statements if not s.lstrip().upper().startswith("PRAGMA")])


def _pages(assignment_id: str) -> list[str]:
    page = f"/learn/{assignment_id}/instructor"
    return [page, f"{page}/grades.csv", f"{page}/grades.csv?attempts=all",
            f"{page}/analytics.csv", f"/api/v1/assignments/{assignment_id}/analytics"]


@pytest.mark.parametrize("assignment_id", ["attention-basics", "course-copy"])
def test_instructor_pages_read_the_store_a_fixed_number_of_times(app, browser, instructor_key,
                                                                  client, assignment_id):
    """Counted with SQLAlchemy's ``before_cursor_execute`` over 3 and then 30 learners (60
    submissions): the same number of statements. A course assignment reads its record once
    more than a built-in one."""
    if assignment_id == "course-copy":
        client.post("/api/v1/assignments/attention-basics/copy", json={"id": assignment_id})
    sign_in(browser, instructor_key)
    store = app.extensions["grader"].store

    def counts():
        out = {url: _queries(app, client if url.startswith("/api") else browser, url)
               for url in _pages(assignment_id)}
        sid = store.submissions_of("local", assignment_id)[0].id
        out["submission page"] = _queries(
            app, browser, f"/learn/{assignment_id}/instructor/submissions/{sid}")
        return out

    _graded_class(store, 3, assignment_id)
    small = counts()
    _graded_class(store, 27, assignment_id)
    large = counts()
    assert large == small
    assert max(small.values()) <= 8, small
    print(f"queries per page ({assignment_id}): {small}")


def test_the_learner_page_shows_the_due_date_in_the_course_zone(app, client):
    client.patch("/api/v1/course", json={"time_zone": "Europe/Berlin"})
    client.post("/api/v1/assignments", json={
        "id": "due", "title": "Due", "due_at": "2031-06-01T23:59:00", "published": True,
        "late_policy": {"mode": "penalty_per_day", "percent": 10},
        "items": [{"id": "c", "kind": "choice", "points": 1, "prompt": "?",
                   "options": {"A": "a", "B": "b"}, "answer": "B"}]})
    page = app.test_client().get("/learn/due").get_data(as_text=True)
    assert "Due 2031-06-01 23:59 (UTC+02:00), Europe/Berlin time; late work loses 10% of the " \
           "points possible for each day (or part of a day) late." in page
    client.post("/api/v1/assignments/due/extensions",
                json={"learner_id": "amy", "due_at": "2031-06-08T12:00:00"})
    browser = app.test_client()
    key = client.environ_base["HTTP_AUTHORIZATION"].removeprefix("Bearer ")
    sign_in(browser, key, "/learn/due/instructor")
    view = browser.get("/learn/due/instructor").get_data(as_text=True)
    assert "2031-06-01 23:59 (UTC+02:00), Europe/Berlin time" in view  # as the learner's page
    assert "amy: 2031-06-08 12:00 (UTC+02:00)" in view
