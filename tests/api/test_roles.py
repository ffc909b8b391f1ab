"""Every endpoint, every role: 401 without a valid key, 403 with the wrong role or course, and
other courses' resources answer exactly like missing ones."""
import pytest

from grader.bootstrap import create_admin_key

SUB = "/api/v1/assignments/attention-basics/submissions"


@pytest.fixture
def keys(app, client):
    """Keys for: admin, instructor and lms of course A (local), instructor of course B."""
    store = app.extensions["grader"].store
    admin = create_admin_key(store)
    out = {"admin": admin, "instructor": client.environ_base["HTTP_AUTHORIZATION"][7:]}
    headers = {"Authorization": f"Bearer {admin}"}
    out["lms"] = client.post("/api/v1/courses/local/keys", json={"role": "lms"},
                             headers=headers).get_json()["key"]
    assert client.post("/api/v1/courses", json={"id": "other", "name": "B"},
                       headers=headers).status_code == 201
    out["other"] = client.post("/api/v1/courses/other/keys", json={"role": "instructor"},
                               headers=headers).get_json()["key"]
    return out


@pytest.fixture
def submission_id(client):
    resp = client.post(SUB, json={"learner_id": "l1", "responses": {"no-positions": {"choice": "B"}}})
    return resp.get_json()["id"]


# (method, path, body, roles allowed). {sid} is a submission of course A.
ENDPOINTS = [
    ("GET", "/api/v1/assignments", None, {"instructor", "lms"}),
    ("GET", "/api/v1/assignments/attention-basics", None, {"instructor", "lms"}),
    ("POST", SUB, {"learner_id": "x", "responses": {"no-positions": {"choice": "B"}}}, {"instructor", "lms"}),
    ("POST", SUB + "/batch", {"submissions": [{"learner_id": "x", "responses": {"no-positions": {"choice": "B"}}}]},
     {"instructor", "lms"}),
    ("GET", "/api/v1/submissions/{sid}", None, {"instructor", "lms"}),
    ("POST", "/api/v1/submissions/{sid}/link", None, {"instructor", "lms"}),
    ("GET", "/api/v1/submissions/{sid}/history", None, {"instructor"}),
    ("GET", "/api/v1/assignments/attention-basics/grades.csv", None, {"instructor", "lms"}),
    ("POST", "/api/v1/assignments/attention-basics/regrades", {"dry_run": True}, {"instructor"}),
    ("GET", "/api/v1/rubrics", None, {"instructor"}),
    ("GET", "/api/v1/webhooks/deliveries", None, {"instructor"}),
    ("GET", "/api/v1/webhooks/secret", None, {"instructor"}),
    ("GET", "/api/v1/courses", None, {"admin"}),
    ("GET", "/api/v1/courses/local/keys", None, {"admin"}),
    ("POST", "/api/v1/courses", {"id": "new-course", "name": "N"}, {"admin"}),
]


def call(client, method, path, body, key):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return client.open(path, method=method, json=body, headers=headers)


@pytest.mark.parametrize("method,path,body,allowed", ENDPOINTS)
@pytest.mark.parametrize("role", ["admin", "instructor", "lms", None, "bogus"])
def test_role_table(app, keys, submission_id, method, path, body, allowed, role):
    anonymous = app.test_client()
    key = {"bogus": "agk_000000000000_" + "x" * 43, None: None}.get(role, keys.get(role))
    resp = call(anonymous, method, path.format(sid=submission_id), body, key)
    if role in (None, "bogus"):
        assert resp.status_code == 401
        assert resp.get_json()["code"] == "unauthorized"
    elif role in allowed:
        assert resp.status_code in (200, 201, 202), resp.get_data(as_text=True)
    else:
        assert resp.status_code == 403
        assert resp.get_json()["code"] == "forbidden"


def test_other_courses_submission_looks_missing(app, keys, submission_id):
    anonymous = app.test_client()
    other = {"Authorization": f"Bearer {keys['other']}"}
    theirs = anonymous.get(f"/api/v1/submissions/{submission_id}", headers=other)
    missing = anonymous.get("/api/v1/submissions/00000000-0000-0000-0000-000000000000",
                            headers=other)
    assert theirs.status_code == missing.status_code == 404
    assert theirs.get_json()["code"] == missing.get_json()["code"]


def test_revoked_key_is_rejected(app, keys):
    anonymous = app.test_client()
    admin = {"Authorization": f"Bearer {keys['admin']}"}
    lms = keys["lms"]
    assert call(anonymous, "GET", "/api/v1/assignments", None, lms).status_code == 200
    assert anonymous.delete(f"/api/v1/keys/{lms[4:16]}", headers=admin).status_code == 204
    assert call(anonymous, "GET", "/api/v1/assignments", None, lms).status_code == 401


def test_keys_are_stored_hashed(app, keys):
    from grader.store.models import ApiKey

    store = app.extensions["grader"].store
    with store.sessions() as session:
        digests = [row.digest for row in session.query(ApiKey)]
    assert all(len(d) == 64 for d in digests)
    assert not any(keys["lms"] in d or d in keys["lms"] for d in digests)


def test_key_listing_never_shows_secrets(app, keys):
    resp = app.test_client().get("/api/v1/courses/local/keys",
                                 headers={"Authorization": f"Bearer {keys['admin']}"})
    assert resp.status_code == 200
    assert all("key" not in row for row in resp.get_json())
    assert keys["lms"] not in resp.get_data(as_text=True)
