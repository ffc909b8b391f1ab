"""OIDC login and resource-link launches against the simulated platform, over HTTP."""
from __future__ import annotations

from urllib.parse import parse_qs, urljoin, urlsplit

import requests

from tests.lti.flows import instructor, launch, learner
from tests.lti.platform import LaunchSpec, parse_forms


def test_login_redirects_to_the_platform_with_every_oidc_parameter(tool, platform, registered,
                                                                    browser):
    spec = learner()
    url = platform.login_initiation(spec)
    login = parse_qs(urlsplit(url).query)
    resp = browser.get(url, allow_redirects=False, timeout=10)
    assert resp.status_code == 302
    location = urlsplit(resp.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == platform.url + "/auth"
    query = {k: v[0] for k, v in parse_qs(location.query).items()}
    # the fixed values of LTI Core 1.3, 5.1.1.2, and the platform's own hints echoed
    assert {k: query[k] for k in ("scope", "response_type", "response_mode", "prompt",
                                  "client_id", "redirect_uri", "login_hint",
                                  "lti_message_hint")} == {
        "scope": "openid", "response_type": "id_token", "response_mode": "form_post",
        "prompt": "none", "client_id": platform.client_id,
        "redirect_uri": tool[1] + "/lti/launch", "login_hint": login["login_hint"][0],
        "lti_message_hint": "msg-link-1"}
    assert len(query["state"]) >= 40 and len(query["nonce"]) >= 40
    assert query["state"] != query["nonce"]
    # the state is bound to this browser by a cookie, only sent back to /lti/
    [cookie] = [c for c in browser.cookies if c.name.startswith("lti_state_")]
    assert (cookie.value, cookie.path) == (query["state"], "/lti/")
    # a second login gets a new state and nonce
    again = browser.get(platform.login_initiation(spec), allow_redirects=False, timeout=10)
    second = parse_qs(urlsplit(again.headers["Location"]).query)
    assert second["state"][0] != query["state"] and second["nonce"][0] != query["nonce"]


def test_login_by_post_works_like_get(tool, platform, registered, browser):
    url = platform.login_initiation(learner())
    form = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    resp = browser.post(tool[1] + "/lti/login", data=form, allow_redirects=False, timeout=10)
    assert resp.status_code == 302
    assert resp.headers["Location"].startswith(platform.url + "/auth?")


def test_learner_launch_opens_the_learner_page_with_sub_as_learner_id(tool, platform, registered,
                                                                      browser):
    item = platform.add_lineitem()
    resp = launch(browser, platform, learner("learner-42", lineitem_id=item))
    assert resp.status_code == 303, resp.text
    assert resp.headers["Location"].endswith("/learn/attention-basics")
    page = browser.get(urljoin(tool[1], resp.headers["Location"]), timeout=10)
    assert page.status_code == 200
    # the learner page, signed in as the launch's user
    assert "Signed in as <strong>Ada Lovelace</strong>" in page.text
    assert 'name="response-sdpa"' in page.text
    # the state cookie is spent
    assert not [c for c in browser.cookies if c.name.startswith("lti_state_")]
    # the AGS target is recorded for this learner
    store = tool[0].extensions["grader"].store
    [target] = store.lti.grade_targets("local", "attention-basics", "learner-42")
    assert target.lineitem_url == f"{platform.url}/lineitems/{item}"
    assert (target.user_sub, target.deployment_id, target.resource_link_id) == (
        "learner-42", platform.deployment_id, "link-1")


def test_instructor_launch_opens_the_instructor_view_and_records_no_target(tool, platform,
                                                                           registered, browser):
    item = platform.add_lineitem()
    resp = launch(browser, platform, instructor("teacher-9", lineitem_id=item))
    assert resp.status_code == 303, resp.text
    assert resp.headers["Location"].endswith("/learn/attention-basics/instructor")
    page = browser.get(urljoin(tool[1], resp.headers["Location"]), timeout=10)
    assert page.status_code == 200 and '<span class="role">instructor</span>' in page.text
    store = tool[0].extensions["grader"].store
    assert store.lti.grade_targets("local", "attention-basics", "teacher-9") == []


def test_teaching_assistant_and_administrator_roles_are_staff(tool, platform, registered,
                                                              browser):
    for role in ("http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
                 "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
                 "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"):
        resp = launch(browser, platform, LaunchSpec(sub="staff", roles=[role], custom={
            "assignment_id": "attention-basics"}))
        assert resp.status_code == 303, (role, resp.text)
        assert resp.headers["Location"].endswith("/learn/attention-basics/instructor"), role


def test_assignment_from_the_target_link_uri_query(tool, platform, registered, browser):
    spec = LaunchSpec(sub="learner-3", roles=[
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"], claims={
        "https://purl.imsglobal.org/spec/lti/claim/target_link_uri":
            tool[1] + "/lti/launch?assignment_id=attention-code"})
    resp = launch(browser, platform, spec)
    assert resp.status_code == 303, resp.text
    assert resp.headers["Location"].endswith("/learn/attention-code")


def test_observer_role_gets_a_clear_403(tool, platform, registered, browser):
    spec = LaunchSpec(sub="parent", roles=[
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"],
        custom={"assignment_id": "attention-basics"})
    resp = launch(browser, platform, spec)
    assert resp.status_code == 403
    assert "learners and instructors only" in resp.text
    assert "role_not_supported" in resp.text


def test_link_without_assignment_or_with_unknown_one_is_explained(tool, platform, registered,
                                                                  browser):
    resp = launch(browser, platform, learner(custom={}))
    assert resp.status_code == 400
    assert "does not say which assignment" in resp.text and "deep linking" in resp.text
    resp = launch(browser, platform, learner(custom={"assignment_id": "no-such-thing"}))
    assert resp.status_code == 404
    assert "no assignment &#39;no-such-thing&#39;" in resp.text


def test_blocked_state_cookie_offers_the_new_window_fallback(tool, platform, registered, browser):
    """A browser that drops the state cookie (third-party cookies blocked in the LMS iframe) gets
    a link that restarts the login in a new window, where the cookie is first-party."""
    url = platform.login_initiation(learner())
    resp = browser.get(url, allow_redirects=False, timeout=10)
    browser.cookies.clear()  # what a browser blocking third-party cookies keeps
    auth = browser.get(resp.headers["Location"], timeout=10)
    [form] = parse_forms(auth.text)
    refused = browser.post(form["action"], data=form["fields"], allow_redirects=False,
                           timeout=10)
    assert refused.status_code == 403
    assert "Open the activity in a new window" in refused.text
    [link] = [line for line in refused.text.splitlines() if 'target="_blank"' in line]
    href = link.split('href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    assert href.startswith(tool[1] + "/lti/login?")
    # the same login parameters the platform sent, so the platform can run it again
    assert parse_qs(urlsplit(href).query) == parse_qs(urlsplit(url).query)
    # the new window runs the whole flow again and lands on the learner page
    second = browser.get(href, allow_redirects=False, timeout=10)
    assert second.status_code == 302
    auth = browser.get(second.headers["Location"], timeout=10)
    [form] = parse_forms(auth.text)
    done = browser.post(form["action"], data=form["fields"], allow_redirects=False, timeout=10)
    assert done.status_code == 303 and done.headers["Location"].endswith(
        "/learn/attention-basics")


def test_refusals_answer_json_to_api_clients(tool, platform, registered):
    resp = requests.get(tool[1] + "/lti/login", params={"iss": "https://nobody.example",
                                                        "login_hint": "x",
                                                        "target_link_uri": tool[1] + "/lti/launch"},
                        headers={"Accept": "application/json"}, timeout=10)
    assert resp.status_code == 403
    assert resp.json() == {"status": 403, "code": "unknown_platform", "field": "iss",
                           "message": "No platform with issuer 'https://nobody.example' is "
                                      "registered with this tool."}


def test_login_refuses_missing_parameters_and_foreign_targets(tool, platform, registered):
    base = {"iss": platform.issuer, "login_hint": "h", "target_link_uri": tool[1] + "/lti/launch"}
    for missing in ("iss", "login_hint", "target_link_uri"):
        params = {k: v for k, v in base.items() if k != missing}
        resp = requests.get(tool[1] + "/lti/login", params=params, timeout=10,
                            headers={"Accept": "application/json"})
        assert (resp.status_code, resp.json()["field"]) == (400, missing)
    resp = requests.get(tool[1] + "/lti/login", timeout=10, headers={"Accept": "application/json"},
                        params={**base, "target_link_uri": "https://evil.example/lti/launch"})
    assert (resp.status_code, resp.json()["code"]) == (400, "foreign_target_link_uri")
    resp = requests.get(tool[1] + "/lti/login", timeout=10, headers={"Accept": "application/json"},
                        params={**base, "lti_deployment_id": "deployment-x"})
    assert (resp.status_code, resp.json()["code"]) == (403, "unknown_deployment")
