"""Platform registration by an admin (``/api/v1/lti/platforms``), the tool's keys and their
rotation."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import jwt
import pytest

from tests.conftest import ROOT


@pytest.fixture
def admin(app):
    _row, key = app.extensions["grader"].store.courses.create_key("admin", None, "t")
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    return client


def body(**extra):
    base = {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
            "deployment_ids": ["1:abc"], "course_id": "local",
            "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
            "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
            "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks"}
    return {**base, **extra}


def test_admin_registers_lists_reads_and_deletes_a_platform(admin):
    resp = admin.post("/api/v1/lti/platforms", json=body(label="Canvas cloud"))
    assert resp.status_code == 201, resp.json
    created = resp.json
    assert resp.headers["Location"].endswith("/api/v1/lti/platforms/" + created["id"])
    assert {k: created[k] for k in body()} == body()
    assert (created["learner_prefix"], created["auth_audience"], created["label"]) == (
        "", None, "Canvas cloud")
    assert created["tool"] == {
        "login_url": "http://localhost/lti/login", "launch_url": "http://localhost/lti/launch",
        "redirect_uris": ["http://localhost/lti/launch"],
        "deep_linking_url": "http://localhost/lti/launch",
        "jwks_url": "http://localhost/lti/jwks",
        "canvas_configuration_url": "http://localhost/lti/config/canvas.json"}
    assert [p["id"] for p in admin.get("/api/v1/lti/platforms").json] == [created["id"]]
    assert admin.get("/api/v1/lti/platforms/" + created["id"]).json["client_id"] == \
        "10000000000042"
    assert admin.delete("/api/v1/lti/platforms/" + created["id"]).status_code == 204
    assert admin.get("/api/v1/lti/platforms/" + created["id"]).status_code == 404
    assert admin.delete("/api/v1/lti/platforms/" + created["id"]).status_code == 404


def test_registration_is_validated_field_by_field(admin):
    for field, value in (("issuer", "not a url"), ("key_set_url", "ftp://x.example/jwks"),
                         ("deployment_ids", []), ("deployment_ids", ["a", "a"]),
                         ("client_id", ""), ("learner_prefix", "has space")):
        resp = admin.post("/api/v1/lti/platforms", json=body(**{field: value}))
        assert resp.status_code == 422, (field, resp.json)
        assert resp.json["field"] == field, (field, resp.json)
    resp = admin.post("/api/v1/lti/platforms", json={k: v for k, v in body().items()
                                                     if k != "auth_token_url"})
    assert (resp.status_code, resp.json["field"]) == (422, "auth_token_url")
    resp = admin.post("/api/v1/lti/platforms", json=body(course_id="no-such-course"))
    assert (resp.status_code, resp.json["code"]) == (404, "course_not_found")


def test_duplicates_and_clashing_learner_prefixes_conflict(admin):
    assert admin.post("/api/v1/lti/platforms", json=body()).status_code == 201
    resp = admin.post("/api/v1/lti/platforms", json=body())
    assert (resp.status_code, resp.json["field"]) == (409, "client_id")
    # a second platform for the same course must namespace its users
    moodle = body(issuer="https://moodle.example.edu", client_id="abc",
                  auth_login_url="https://moodle.example.edu/mod/lti/auth.php")
    resp = admin.post("/api/v1/lti/platforms", json=moodle)
    assert (resp.status_code, resp.json["field"]) == (409, "learner_prefix")
    # the first platform's empty prefix starts every prefix (red-team finding 5): its user
    # "moodle:7" and Moodle's user "7" would be one learner, so "moodle:" clashes too
    resp = admin.post("/api/v1/lti/platforms", json={**moodle, "learner_prefix": "moodle:"})
    assert (resp.status_code, resp.json["field"]) == (409, "learner_prefix")
    # in another course the same registration is fine
    admin.post("/api/v1/courses", json={"id": "cs402", "name": "CS 402"})
    assert admin.post("/api/v1/lti/platforms", json={**moodle, "course_id": "cs402",
                                                     "learner_prefix": "moodle:"}).status_code \
        == 201


def test_only_admins_manage_platforms(client, anonymous):
    assert anonymous.get("/api/v1/lti/platforms").status_code == 401
    resp = client.post("/api/v1/lti/platforms", json=body())  # an instructor key
    assert (resp.status_code, resp.json["code"]) == (403, "forbidden")


def test_openapi_documents_the_registration(anonymous):
    spec = anonymous.get("/api/v1/openapi.json").json
    paths = spec["paths"]
    assert set(paths["/api/v1/lti/platforms"]) >= {"get", "post"}
    assert set(paths["/api/v1/lti/platforms/{platform_id}"]) >= {"get", "delete"}
    schema = spec["components"]["schemas"]["PlatformCreate"]
    assert set(schema["required"]) == {"issuer", "client_id", "deployment_ids", "auth_login_url",
                                       "auth_token_url", "key_set_url", "course_id"}


def test_canvas_configuration_names_our_urls(anonymous):
    config = anonymous.get("/lti/config/canvas.json").json
    assert config["oidc_initiation_url"] == "http://localhost/lti/login"
    assert config["target_link_uri"] == "http://localhost/lti/launch"
    assert config["public_jwk_url"] == "http://localhost/lti/jwks"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in config["scopes"]
    placements = config["extensions"][0]["settings"]["placements"]
    assert {p["message_type"] for p in placements} == {"LtiDeepLinkingRequest"}


def test_rotation_keeps_the_old_key_published_for_the_overlap(app):
    from grader.lti.keys import ToolKeys
    from grader.store.models import utcnow

    keys: ToolKeys = app.extensions["lti"].keys
    first = keys.current_kid()
    token = keys.sign({"iss": "me", "aud": "you"})
    second = keys.rotate()
    assert second != first and keys.current_kid() == second
    published = {k["kid"]: k for k in keys.jwks()["keys"]}
    assert list(published) == [second, first]  # current first
    # the token signed before the rotation still verifies with the published old key
    old = jwt.PyJWK(published[first])
    assert jwt.decode(token, old.key, algorithms=["RS256"], audience="you")["iss"] == "me"
    assert jwt.get_unverified_header(keys.sign({"aud": "x"}))["kid"] == second
    # once the overlap has passed, a rotation forgets the old key
    store = app.extensions["grader"].store
    with store.sessions.begin() as session:
        from grader.store.lti_models import LtiToolKey

        session.get(LtiToolKey, first).retired_at = utcnow() - timedelta(seconds=3601)
    assert [k["kid"] for k in keys.jwks()["keys"]] == [second]
    third = keys.rotate()
    assert [k["kid"] for k in keys.jwks()["keys"]] == [third, second]
    assert store.lti.tool_keys(published_since=utcnow() - timedelta(days=365))[-1].kid == second


def test_private_keys_are_sealed_at_rest(app):
    from grader.store.lti_models import LtiToolKey

    app.extensions["lti"].keys.current_kid()
    with app.extensions["grader"].store.sessions() as session:
        [row] = session.query(LtiToolKey).all()
    assert "PRIVATE KEY" not in row.private_key
    assert app.extensions["lti"].keys.sealer.unseal(row.private_key).startswith(
        "-----BEGIN PRIVATE KEY-----")


def test_overlap_shorter_than_token_lifetime_is_refused(app):
    from grader.lti.keys import ToolKeys

    with pytest.raises(ValueError, match="at least 600"):
        ToolKeys(app.extensions["grader"].store, "s", overlap=60)


def test_cli_rotates_the_key(tmp_path):
    env = {**os.environ, "INSTANCE_PATH": str(tmp_path), "GRADER_SECRET_KEY": "cli-secret",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}"}
    grader = str(Path(sys.executable).parent / "grader")
    first = subprocess.run([grader, "lti", "rotate-key"], env=env, cwd=ROOT, text=True,
                           capture_output=True, check=True).stdout
    second = subprocess.run([grader, "lti", "rotate-key"], env=env, cwd=ROOT, text=True,
                            capture_output=True, check=True).stdout
    kid1 = first.split()[4].rstrip(";")
    kid2 = second.split()[4].rstrip(";")
    assert kid1 != kid2
    assert f"published: {kid2}, {kid1}" in second
