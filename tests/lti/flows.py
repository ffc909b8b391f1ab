"""Steps of an LTI flow as a browser makes them, over HTTP with requests."""
from __future__ import annotations

import requests

from tests.lti.platform import INSTRUCTOR, LEARNER, LaunchSpec, SimulatedPlatform, parse_forms


def launch(browser: requests.Session, platform: SimulatedPlatform, spec: LaunchSpec,
           **login_params) -> requests.Response:
    """Run login -> platform authorization -> form post of the id_token, as a browser would;
    returns the tool's answer to the launch (redirects not followed)."""
    resp = browser.get(platform.login_initiation(spec, **login_params), allow_redirects=False,
                       timeout=10)
    assert resp.status_code == 302, resp.text
    auth = browser.get(resp.headers["Location"], timeout=10)
    assert auth.status_code == 200, auth.text
    [form] = parse_forms(auth.text)
    return browser.post(form["action"], data=form["fields"], allow_redirects=False, timeout=30)


def learner(sub: str = "learner-1", **kwargs) -> LaunchSpec:
    kwargs.setdefault("custom", {"assignment_id": "attention-basics"})
    return LaunchSpec(sub=sub, roles=[LEARNER], **kwargs)


def instructor(sub: str = "teacher-1", **kwargs) -> LaunchSpec:
    kwargs.setdefault("custom", {"assignment_id": "attention-basics"})
    return LaunchSpec(sub=sub, roles=[INSTRUCTOR], **kwargs)


def start_login(browser: requests.Session, platform: SimulatedPlatform, spec: LaunchSpec
                ) -> dict[str, str]:
    """Only the login step: returns the state and nonce the tool sent to the platform (the
    browser keeps the state cookie), for tests that post their own id_token."""
    from urllib.parse import parse_qs, urlsplit

    resp = browser.get(platform.login_initiation(spec), allow_redirects=False, timeout=10)
    assert resp.status_code == 302, resp.text
    query = parse_qs(urlsplit(resp.headers["Location"]).query)
    return {"state": query["state"][0], "nonce": query["nonce"][0],
            "redirect_uri": query["redirect_uri"][0]}


def post_id_token(browser: requests.Session, login: dict[str, str], id_token: str,
                  json: bool = False) -> requests.Response:
    headers = {"Accept": "application/json"} if json else {}
    return browser.post(login["redirect_uri"], data={"id_token": id_token,
                                                     "state": login["state"]},
                        headers=headers, allow_redirects=False, timeout=10)
