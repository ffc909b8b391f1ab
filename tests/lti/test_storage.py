"""Canvas's postMessage storage (issue 27, item 8; 1EdTech LTI Client Side postMessages): when
the login names ``lti_storage_target``, the tool keeps a per-login secret in the platform's
storage frame, and a launch that comes without the state cookie (the browser blocks even
partitioned cookies) reads it back and is accepted; a wrong or missing secret falls back to
today's new-window path. Here the test plays the browser's JavaScript and the platform's storage
frame over HTTP; tests/lti/test_browser_storage.py runs the same in headless Chromium."""
from __future__ import annotations

import re
from html import unescape

import requests

from tests.lti.flows import learner
from tests.lti.platform import parse_forms


def _data(html: str) -> dict[str, str]:
    tag = re.search(r'<div id="lti-storage"([^>]*)>', html).group(1)
    return {k: unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', tag)}


def _login_and_authorize(platform, spec, browser_cookies: requests.Session) -> tuple[dict, dict]:
    """Login with a storage target (the put page), then the platform's authorization form:
    (what the put page stores, the form of the id_token)."""
    url = platform.login_initiation(spec, lti_storage_target="post_message_forwarding")
    page = browser_cookies.get(url, allow_redirects=False, timeout=10)
    assert page.status_code == 200, page.text
    put = _data(page.text)
    auth = browser_cookies.get(put["next"], timeout=10)
    [form] = parse_forms(auth.text)
    return put, form


def test_a_launch_without_its_cookie_is_bound_by_the_platform_storage(tool, platform,
                                                                       registered):
    with requests.Session() as cookieless:
        put, form = _login_and_authorize(platform, learner("learner-91"), cookieless)
        assert (put["mode"], put["target"], put["origin"]) == ("put", "post_message_forwarding",
                                                               platform.url)
        assert put["key"] == "lti_state_" + form["fields"]["state"]
        assert put["next"].startswith(platform.url + "/auth?")
        cookieless.cookies.clear()  # the browser blocked the tool's cookie
        page = cookieless.post(form["action"], data=form["fields"], allow_redirects=False,
                               timeout=10)
        assert page.status_code == 200, page.text
        get = _data(page.text)
        assert (get["mode"], get["key"], get["origin"]) == ("get", put["key"], platform.url)
        [again] = parse_forms(page.text)
        assert again["fields"]["state"] == form["fields"]["state"]
        assert again["fields"]["id_token"] == form["fields"]["id_token"]
        # the storage frame answered with the stored value: the launch is accepted
        resp = cookieless.post(again["action"] if again["action"].startswith("http") else
                               tool[1] + again["action"],
                               data={**again["fields"], "lti_storage_value": put["value"]},
                               allow_redirects=False, timeout=10)
        assert resp.status_code == 303, resp.text
        assert resp.headers["Location"].endswith("/learn/attention-basics")


def test_a_wrong_or_missing_secret_falls_back_to_the_new_window(tool, platform, registered):
    for value in ("not-the-secret", ""):
        with requests.Session() as cookieless:
            put, form = _login_and_authorize(platform, learner("learner-92"), cookieless)
            cookieless.cookies.clear()
            resp = cookieless.post(form["action"], data={**form["fields"],
                                                         "lti_storage_value": value},
                                   headers={"Accept": "text/html"}, allow_redirects=False,
                                   timeout=10)
            assert resp.status_code == 403, resp.text
            assert "Open the activity in a new window" in resp.text
            retry = re.search(r'href="([^"]*/lti/login\?[^"]*)"', resp.text).group(1)
            assert "lti_storage_target" not in unescape(retry)  # no LMS frame around it
            assert "login_hint=" in unescape(retry)
