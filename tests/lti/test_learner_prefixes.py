"""Red-team finding 5: learner ids are ``learner_prefix + sub``, so two platforms of one course
must have prefixes neither of which starts the other; distinct ones were not enough ("" and "c:"
were both accepted, and the first platform's user "c:7" was the second one's user "7")."""
from __future__ import annotations

import pytest

from grader.store.lti import prefix_clash


@pytest.fixture
def admin(app):
    _row, key = app.extensions["grader"].store.courses.create_key("admin", None, "t")
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    return client


def registration(n: int, prefix: str, course: str = "local") -> dict:
    host = f"https://lms{n}.example.edu"
    return {"issuer": host, "client_id": f"client-{n}", "deployment_ids": ["d1"],
            "course_id": course, "auth_login_url": host + "/auth",
            "auth_token_url": host + "/token", "key_set_url": host + "/jwks",
            "learner_prefix": prefix}


# (registered prefix, new prefix, clash?): worked out from the definition, "one is a prefix of
# the other (equality included)"
CASES = [
    ("", "c:", True),         # "" starts everything
    ("c:", "", True),         # ... in either order
    ("c", "c:", True),        # "c" starts "c:": user ":7" of c and user "7" of c: are "c:7"
    ("c:", "c", True),
    ("c:", "c:", True),       # equal
    ("canvas:", "moodle:", False),
    ("c:", "d:", False),
    ("c1:", "c2:", False),    # differ at the second character
    ("ab", "ba", False),
]


@pytest.mark.parametrize("registered,new,clashes", CASES)
def test_a_prefix_that_starts_or_is_started_by_another_is_409_naming_both(
        admin, registered, new, clashes):
    first = admin.post("/api/v1/lti/platforms", json=registration(1, registered))
    assert first.status_code == 201, first.json
    resp = admin.post("/api/v1/lti/platforms", json=registration(2, new))
    if not clashes:
        assert resp.status_code == 201, resp.json
        return
    assert (resp.status_code, resp.json["code"], resp.json["field"]) == (
        409, "conflict", "learner_prefix")
    message = resp.json["message"]
    assert first.json["id"] in message and "https://lms1.example.edu" in message
    assert f"learner_prefix {registered!r}" in message
    # nothing was stored for the refused one
    assert [p["issuer"] for p in admin.get("/api/v1/lti/platforms").json] == [
        "https://lms1.example.edu"]


def test_the_message_shows_two_users_that_would_be_one_learner():
    # "c" + ":42" == "c:" + "42" == "c:42"
    assert prefix_clash("c:", "c") == ("'c' is the start of 'c:': the user ':42' of the platform "
                                       "with 'c' and the user '42' of the platform with 'c:' "
                                       "would both be the learner 'c:42'")
    assert prefix_clash("x:", "x:") == "the prefixes are equal"
    assert prefix_clash("canvas:", "moodle:") == ""


def test_every_pair_of_a_course_is_checked_not_only_the_first(admin):
    for n, prefix in enumerate(["canvas:", "moodle:", "d2l:"], start=1):
        assert admin.post("/api/v1/lti/platforms",
                          json=registration(n, prefix)).status_code == 201
    # starts the third registration's prefix only
    resp = admin.post("/api/v1/lti/platforms", json=registration(4, "d2l:x"))
    assert resp.status_code == 409 and "'d2l:'" in resp.json["message"]
    assert "https://lms3.example.edu" in resp.json["message"]


def test_prefixes_of_different_courses_never_clash(admin):
    assert admin.post("/api/v1/courses", json={"id": "cs402", "name": "CS 402"}).status_code \
        == 201
    assert admin.post("/api/v1/lti/platforms", json=registration(1, "")).status_code == 201
    assert admin.post("/api/v1/lti/platforms",
                      json=registration(2, "c:", course="cs402")).status_code == 201
    assert admin.post("/api/v1/lti/platforms",
                      json=registration(3, "", course="cs402")).status_code == 409
