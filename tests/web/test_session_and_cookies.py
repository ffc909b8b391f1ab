"""session.py (LearnerSession, begin, current) and the session cookie's attributes."""
from __future__ import annotations

import json

import pytest
from flask import session

from grader.app import close_app
from grader.web.session import LearnerSession, begin, current, practice_session


def test_learner_session_validates_role_and_ids():
    with pytest.raises(ValueError, match="role must be one of learner, instructor"):
        LearnerSession(course_id="c", learner_id="l", role="admin")
    with pytest.raises(ValueError, match="course_id"):
        LearnerSession(course_id="", learner_id="l")
    with pytest.raises(ValueError, match="learner_id"):
        LearnerSession(course_id="c", learner_id="")
    launched = LearnerSession(course_id="c", learner_id="l", assignment_id="a1")
    assert launched.may_open("a1") and not launched.may_open("a2")
    assert LearnerSession(course_id="c", learner_id="l").may_open("anything")


def test_begin_stores_the_learner_and_rotates_the_session(app):
    learner = LearnerSession(course_id="local", learner_id="u1", role="instructor",
                             assignment_id="attention-basics", name="Grace",
                             lti={"deployment_id": "d1", "lineitem": "https://lms/li/1"})
    with app.test_request_context("/"):
        assert current() is None
        session["csrf_token"] = "old-token"
        session["sid"] = "planted-by-someone-else"
        begin(learner)
        assert current() == learner
        assert "csrf_token" not in session  # a new CSRF token is drawn for the new session
        first_sid = session["sid"]
        assert first_sid != "planted-by-someone-else" and len(first_sid) >= 16
        begin(learner)
        assert session["sid"] != first_sid


def test_begin_refuses_a_session_that_would_not_fit_in_a_cookie(app):
    big = LearnerSession(course_id="local", learner_id="u1", lti={"claims": "x" * 4000})
    with app.test_request_context("/"):
        with pytest.raises(ValueError, match="at most 3000 fit in a cookie"):
            begin(big)


def test_a_session_of_an_unknown_shape_counts_as_signed_out(app):
    with app.test_request_context("/"):
        session["grader.learner"] = {"course_id": "c", "learner_id": "l", "role": "root"}
        assert current() is None


def test_practice_learners_are_anonymous_and_distinct():
    a, b = practice_session("local"), practice_session("local")
    assert a.learner_id != b.learner_id
    assert a.learner_id.startswith("practice-") and len(a.learner_id) == len("practice-") + 16
    assert (a.role, a.assignment_id, a.lti) == ("learner", None, None)


def _session_cookie(response) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("grader_session=")]
    assert len(cookies) == 1, response.headers.getlist("Set-Cookie")
    return cookies[0]


def test_over_plain_http_the_cookie_is_lax(app):
    cookie = _session_cookie(app.test_client().get("/learn/attention-basics"))
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie
    assert "Secure" not in cookie and "Partitioned" not in cookie


def test_over_https_the_cookie_works_in_an_lms_iframe(app):
    client = app.test_client()
    cookie = _session_cookie(client.get("/learn/attention-basics",
                                        base_url="https://grader.example.edu"))
    assert "SameSite=None" in cookie and "Secure" in cookie and "Partitioned" in cookie


def test_behind_a_trusted_proxy_x_forwarded_proto_counts(embedded_config):
    from grader.app import create_app

    for hops, secure in ((0, False), (1, True)):
        app = create_app({**embedded_config, "TRUSTED_PROXY_HOPS": hops,
                          "INSTANCE_PATH": embedded_config["INSTANCE_PATH"] + str(hops)})
        try:
            cookie = _session_cookie(app.test_client().get(
                "/learn/attention-basics", headers={"X-Forwarded-Proto": "https"}))
        finally:
            close_app(app)
        assert ("SameSite=None" in cookie and "Secure" in cookie) is secure


def test_cookie_settings_can_be_fixed(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "WEB_COOKIE_SAMESITE": "Strict",
                      "WEB_COOKIE_SECURE": "1"})
    try:
        cookie = _session_cookie(app.test_client().get("/learn/attention-basics"))
    finally:
        close_app(app)
    assert "SameSite=Strict" in cookie and "Secure" in cookie and "Partitioned" not in cookie


def test_an_unknown_samesite_value_is_a_clear_error(embedded_config):
    from grader.app import create_app

    with pytest.raises(ValueError, match="WEB_COOKIE_SAMESITE: one of auto, None, Lax, Strict"):
        create_app({**embedded_config, "WEB_COOKIE_SAMESITE": "sometimes"})


def test_the_cookie_holds_no_secret(app, instructor_key):
    """The session cookie is signed, not encrypted: it must carry ids only."""
    from itsdangerous import base64_decode

    cookie = _session_cookie(app.test_client().get("/learn/attention-basics"))
    payload = cookie.split("=", 1)[1].split(";")[0].lstrip(".").split(".")[0]
    data = base64_decode(payload)
    try:
        import zlib
        data = zlib.decompress(data)
    except zlib.error:
        pass
    stored = json.loads(data)
    assert set(stored) == {"sid", "grader.learner", "csrf_token"}
    assert instructor_key not in json.dumps(stored) and "test-secret" not in json.dumps(stored)


def _launch(learner_id: str, assignment_id: str | None, role: str = "learner",
            course_id: str = "local") -> LearnerSession:
    return LearnerSession(course_id=course_id, learner_id=learner_id, role=role,
                          assignment_id=assignment_id)


def test_a_second_launch_of_the_same_learner_keeps_the_first_open(app):
    """Two activities opened from the LMS in two tabs: both stay open, and the form token too
    (the first tab's form still posts)."""
    with app.test_request_context("/"):
        begin(_launch("ada", "a1"))
        session["csrf_token"] = "token-of-the-first-tab"
        begin(_launch("ada", "a2"))
        now = current()
        assert (now.assignment_id, now.launched) == ("a2", ("a1",))
        assert now.may_open("a1") and now.may_open("a2") and not now.may_open("a3")
        assert now.opened == ("a2", "a1")
        assert session["csrf_token"] == "token-of-the-first-tab"
        begin(_launch("ada", "a1"))  # a1 again: the newest, a2 kept once
        assert (current().assignment_id, current().launched) == ("a1", ("a2",))


@pytest.mark.parametrize("other", [
    _launch("grace", "a2"),                        # another learner
    _launch("ada", "a2", role="instructor"),       # the same id in another role
    _launch("ada", "a2", course_id="other"),       # another course
], ids=["learner", "role", "course"])
def test_a_launch_of_anyone_else_keeps_nothing(app, other):
    with app.test_request_context("/"):
        begin(_launch("ada", "a1"))
        session["csrf_token"] = "ada's"
        begin(other)
        assert current().launched == () and not current().may_open("a1")
        assert "csrf_token" not in session


def test_a_session_keeps_the_newest_twenty_launches(app):
    from grader.web.session import MAX_LAUNCHED

    with app.test_request_context("/"):
        for number in range(25):
            begin(_launch("ada", f"a{number}"))
        now = current()
        assert MAX_LAUNCHED == 20
        # a24 is the current launch; the 20 before it (a4 ... a23) stay open, a0-a3 are gone
        assert now.launched == tuple(f"a{n}" for n in range(4, 24))
        assert now.may_open("a4") and not now.may_open("a3")


def test_launches_that_would_overflow_the_cookie_forget_the_oldest(app):
    from grader.web.session import MAX_SESSION_BYTES, _size

    with app.test_request_context("/"):
        for number in range(20):
            begin(_launch("ada", f"{number:02d}-" + "x" * 200))
        now = current()
        assert _size(now) <= MAX_SESSION_BYTES
        # 20 ids of 203 characters cannot all fit in 3000 bytes; the newest are kept
        assert 0 < len(now.launched) < 19
        assert now.launched[-1].startswith("18-")


def test_an_unbound_session_opens_everything_and_adds_nothing(app):
    with app.test_request_context("/"):
        begin(_launch("ada", None, role="instructor"))
        begin(_launch("ada", "a1", role="instructor"))
        assert current().launched == () and current().opened == ("a1",)
