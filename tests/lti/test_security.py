"""Launches the tool must refuse, each with a clear 4xx naming the reason: tampered, expired,
wrongly addressed or replayed id_tokens, unknown deployments and keys."""
from __future__ import annotations

import time

import jwt
import pytest

from grader.app import close_app
from tests.lti.flows import launch, learner, post_id_token, start_login
from tests.lti.platform import LTI, parse_forms, rsa_key


def refused(resp, status: int, code: str) -> dict:
    """The JSON refusal, checked for status and code."""
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["code"] == code, body
    return body


def test_tampered_id_token_is_refused(tool, platform, registered, browser):
    resp = launch(browser, platform, learner("learner-1", tamper=True))
    assert resp.status_code == 401
    assert "signature does not verify" in resp.text and "invalid_signature" in resp.text
    # the same as JSON for API-style clients
    spec = learner("learner-1", tamper=True)
    login = start_login(browser, platform, spec)
    token = platform.id_token(spec, nonce=login["nonce"])
    assert jwt.decode(token, options={"verify_signature": False})["sub"] == "intruder"
    refused(post_id_token(browser, login, token, json=True), 401, "invalid_signature")


def test_expired_id_token_is_refused(tool, platform, registered, browser):
    now = int(time.time())
    # expired 2 minutes ago: beyond the 60 s clock-skew leeway
    spec = learner(claims={"iat": now - 600, "exp": now - 120})
    body = refused(post_id_token(browser, login := start_login(browser, platform, spec),
                                 platform.id_token(spec, nonce=login["nonce"]), json=True),
                   401, "token_expired")
    assert body["field"] == "exp"
    html = launch(browser, platform, spec)
    assert html.status_code == 401 and "has expired" in html.text


def test_id_token_from_the_future_is_refused(tool, platform, registered, browser):
    now = int(time.time())
    spec = learner(claims={"iat": now + 600, "exp": now + 900})
    login = start_login(browser, platform, spec)
    refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                          json=True), 401, "token_not_yet_valid")


def test_wrong_audience_is_refused(tool, platform, registered, browser):
    spec = learner(claims={"aud": "another-tool"})
    login = start_login(browser, platform, spec)
    body = refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                                 json=True), 401, "wrong_audience")
    assert "'another-tool'" in body["message"]
    # several audiences need azp naming us
    spec = learner(claims={"aud": ["another-tool", platform.client_id]})
    login = start_login(browser, platform, spec)
    refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                          json=True), 401, "wrong_audience")
    spec = learner(claims={"aud": ["another-tool", platform.client_id],
                           "azp": platform.client_id})
    login = start_login(browser, platform, spec)
    resp = post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]))
    assert resp.status_code == 303, resp.text
    spec = learner(claims={"azp": "another-tool"})
    login = start_login(browser, platform, spec)
    refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                          json=True), 401, "wrong_audience")


def test_replayed_launch_is_refused(tool, platform, registered, browser):
    spec = learner()
    resp = browser.get(platform.login_initiation(spec), allow_redirects=False, timeout=10)
    auth = browser.get(resp.headers["Location"], timeout=10)
    [form] = parse_forms(auth.text)
    cookies = dict(browser.cookies)
    first = browser.post(form["action"], data=form["fields"], allow_redirects=False, timeout=10)
    assert first.status_code == 303
    browser.cookies.update(cookies)  # an attacker replaying keeps the cookie too
    again = browser.post(form["action"], data=form["fields"], allow_redirects=False,
                         headers={"Accept": "application/json"}, timeout=10)
    body = refused(again, 401, "replayed_launch")
    assert body["field"] == "nonce"


def test_id_token_of_another_login_is_refused(tool, platform, registered, browser):
    """An id_token captured from one launch, posted with the state of a new login: its nonce is
    not the new login's."""
    spec = learner()
    first = start_login(browser, platform, spec)
    old_token = platform.id_token(spec, nonce=first["nonce"])
    assert post_id_token(browser, first, old_token).status_code == 303
    second = start_login(browser, platform, spec)
    refused(post_id_token(browser, second, old_token, json=True), 401, "nonce_mismatch")
    # the new login is still usable with its own id_token
    assert post_id_token(browser, second, platform.id_token(spec, nonce=second["nonce"])
                         ).status_code == 303


def test_unknown_deployment_is_refused(tool, platform, registered, browser):
    spec = learner(claims={LTI + "deployment_id": "deployment-999"})
    login = start_login(browser, platform, spec)
    body = refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                                 json=True), 403, "unknown_deployment")
    assert "'deployment-999'" in body["message"]
    html = launch(browser, platform, spec)
    assert html.status_code == 403 and "is not registered with this tool" in html.text


def test_unknown_key_and_foreign_signer_are_refused(tool, platform, registered, browser):
    spec = learner(header={"kid": "no-such-key"})
    login = start_login(browser, platform, spec)
    refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                          json=True), 401, "unknown_signing_key")
    other, _jwk, _kid = rsa_key()  # someone else's key, claiming the platform's kid
    spec = learner(sign_key=other)
    login = start_login(browser, platform, spec)
    refused(post_id_token(browser, login, platform.id_token(spec, nonce=login["nonce"]),
                          json=True), 401, "invalid_signature")


@pytest.mark.parametrize("alg", ["HS256", "none"])
def test_algorithms_other_than_rs256_are_refused(tool, platform, registered, browser, alg):
    spec = learner()
    login = start_login(browser, platform, spec)
    claims = jwt.decode(platform.id_token(spec, nonce=login["nonce"]),
                        options={"verify_signature": False})
    # HS256 keyed with the public key (the classic confusion attack), or no signature at all
    token = jwt.encode(claims, "k" * 32 if alg == "HS256" else None,
                       algorithm=alg, headers={"kid": platform.kid})
    refused(post_id_token(browser, login, token, json=True), 401, "invalid_signature")


def test_missing_nonce_state_or_token_is_a_clear_400(tool, platform, registered, browser):
    spec = learner(drop=["nonce"])
    login = start_login(browser, platform, spec)
    body = refused(post_id_token(browser, login, platform.id_token(spec, nonce="x"), json=True),
                   400, "missing_claim")
    assert body["field"] == "nonce"
    resp = browser.post(login["redirect_uri"], data={"id_token": "x.y.z"}, timeout=10,
                        headers={"Accept": "application/json"})
    assert (resp.status_code, resp.json()["field"]) == (400, "state")
    resp = browser.post(login["redirect_uri"], data={"state": "made-up"}, timeout=10,
                        headers={"Accept": "application/json"})
    refused(resp, 401, "unknown_state")
    login = start_login(browser, platform, spec)
    resp = post_id_token(browser, login, "not-a-jwt", json=True)
    refused(resp, 400, "malformed_id_token")


def test_platform_key_rotation_is_followed(tool, platform, registered, browser):
    """The tool caches the platform's JWKS; a launch signed with a new kid makes it fetch again."""
    assert launch(browser, platform, learner()).status_code == 303
    fetches = platform.jwks_fetches
    assert launch(browser, platform, learner()).status_code == 303
    assert platform.jwks_fetches == fetches  # served from the cache
    platform.rotate_key()
    assert launch(browser, platform, learner()).status_code == 303
    assert platform.jwks_fetches == fetches + 1


def test_deleting_a_registration_ends_its_pending_launches(tool, platform, registered, browser,
                                                           admin_headers):
    import requests

    spec = learner()
    login = start_login(browser, platform, spec)
    token = platform.id_token(spec, nonce=login["nonce"])
    resp = requests.delete(tool[1] + "/api/v1/lti/platforms/" + registered["id"],
                           headers=admin_headers, timeout=10)
    assert resp.status_code == 204
    # the login state went with the registration
    refused(post_id_token(browser, login, token, json=True), 401, "unknown_state")
    resp = browser.get(platform.login_initiation(spec), timeout=10,
                       headers={"Accept": "application/json"})
    refused(resp, 403, "unknown_platform")


@pytest.mark.services
def test_replay_is_refused_by_another_process_on_postgresql(tool_config, postgres_url, browser):
    """Two app processes (as gunicorn runs them) share the nonce store in PostgreSQL: a launch
    accepted by one is refused when replayed to the other, and of two simultaneous posts of one
    launch exactly one is accepted."""
    from concurrent.futures import ThreadPoolExecutor

    import requests

    from grader.app import create_app
    from tests.lti.platform import ServerThread, SimulatedPlatform

    config = {**tool_config, "DATABASE_URL": postgres_url}
    apps = [create_app(config), create_app(config)]
    servers = []
    for app in apps:
        servers.append(ServerThread(app))
    platform = SimulatedPlatform(servers[0].url)
    try:
        _row, key = apps[0].extensions["grader"].store.courses.create_key("admin", None, "t")
        resp = requests.post(servers[0].url + "/api/v1/lti/platforms", timeout=10,
                             json=platform.registration(),
                             headers={"Authorization": f"Bearer {key}"})
        assert resp.status_code == 201, resp.text
        spec = learner()
        resp = browser.get(platform.login_initiation(spec), allow_redirects=False, timeout=10)
        [form] = parse_forms(browser.get(resp.headers["Location"], timeout=10).text)
        cookies = dict(browser.cookies)
        assert browser.post(form["action"], data=form["fields"], allow_redirects=False,
                            timeout=10).status_code == 303
        browser.cookies.update(cookies)
        replay = browser.post(servers[1].url + "/lti/launch", data=form["fields"],
                              headers={"Accept": "application/json"}, allow_redirects=False,
                              timeout=10)
        refused(replay, 401, "replayed_launch")

        resp = browser.get(platform.login_initiation(spec), allow_redirects=False, timeout=10)
        [form] = parse_forms(browser.get(resp.headers["Location"], timeout=10).text)
        cookie_header = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())

        def post(server):
            return requests.post(server.url + "/lti/launch", data=form["fields"],
                                 headers={"Cookie": cookie_header}, allow_redirects=False,
                                 timeout=10).status_code

        with ThreadPoolExecutor(max_workers=8) as pool:
            codes = list(pool.map(post, [servers[i % 2] for i in range(8)]))
        assert sorted(codes) == [303] + [401] * 7, codes
    finally:
        platform.close()
        for server, app in zip(servers, apps):
            server.close()
            close_app(app)
            app.extensions["grader"].store.dispose()
