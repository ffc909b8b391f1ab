"""One URL to register (issue 27, item 7; LTI Dynamic Registration 1.0): an admin makes a link
for a course, the LMS (the simulated platform, with its OpenID configuration and registration
endpoint) opens it with its configuration URL and token, the tool registers itself there and the
platform here; learners then launch. The link is single use."""
from __future__ import annotations

from urllib.parse import urlencode

import requests

from tests.lti.flows import launch, learner

CLOSE_SCRIPT = "registered.js"


def test_the_tool_registers_itself_from_one_url(tool, platform, admin_headers, browser):
    base = tool[1]
    made = requests.post(base + "/api/v1/lti/registration-links", headers=admin_headers,
                         json={"course_id": "local", "label": "Simulated LMS"}, timeout=10)
    assert made.status_code == 201, made.text
    link = made.json()["url"]
    assert link.startswith(base + "/lti/register?link=")
    query = urlencode({"openid_configuration": platform.url + "/.well-known/openid-configuration",
                       "registration_token": platform.registration_token})
    page = browser.get(f"{link}&{query}", timeout=30)
    assert page.status_code == 200, page.text
    assert "The grader is registered with simulated-lms" in page.text
    assert CLOSE_SCRIPT in page.text
    # what the tool asked the platform for
    [asked] = platform.registrations
    assert asked["redirect_uris"] == [base + "/lti/launch"]
    assert asked["initiate_login_uri"] == base + "/lti/login"
    assert asked["jwks_uri"] == base + "/lti/jwks"
    assert asked["token_endpoint_auth_method"] == "private_key_jwt"
    assert asked["scope"].split() == [  # the NRPS scope is not among the platform's
        "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
        "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
        "https://purl.imsglobal.org/spec/lti-ags/scope/score"]
    tool_config = asked["https://purl.imsglobal.org/spec/lti-tool-configuration"]
    assert [m["type"] for m in tool_config["messages"]] == ["LtiResourceLinkRequest",
                                                             "LtiDeepLinkingRequest"]
    assert tool_config["domain"] == base.split("://", 1)[1]
    # what the tool recorded: the platform, for the link's course
    [row] = requests.get(base + "/api/v1/lti/platforms", headers=admin_headers,
                         timeout=10).json()
    assert {k: row[k] for k in ("issuer", "client_id", "deployment_ids", "auth_login_url",
                                "auth_token_url", "key_set_url", "course_id", "label")} == {
        "issuer": platform.issuer, "client_id": platform.client_id,
        "deployment_ids": [platform.deployment_id], "auth_login_url": platform.url + "/auth",
        "auth_token_url": platform.url + "/token", "key_set_url": platform.url + "/jwks",
        "course_id": "local", "label": "Simulated LMS"}
    # a learner launches from it
    assert launch(browser, platform, learner("learner-81")).status_code == 303
    # the link is single use
    again = browser.get(f"{link}&{query}", headers={"Accept": "application/json"}, timeout=30)
    assert (again.status_code, again.json()["code"]) == (409, "registration_link_used")


def test_a_refused_registration_leaves_the_link_usable(tool, platform, admin_headers, browser):
    base = tool[1]
    link = requests.post(base + "/api/v1/lti/registration-links", headers=admin_headers,
                         json={"course_id": "local"}, timeout=10).json()["url"]
    config = platform.url + "/.well-known/openid-configuration"
    wrong = browser.get(link + "&" + urlencode({"openid_configuration": config,
                                                "registration_token": "wrong"}),
                        headers={"Accept": "application/json"}, timeout=30)
    assert (wrong.status_code, wrong.json()["code"]) == (502, "registration_refused")
    assert requests.get(base + "/api/v1/lti/platforms", headers=admin_headers,
                        timeout=10).json() == []
    right = browser.get(link + "&" + urlencode({"openid_configuration": config,
                                                "registration_token":
                                                    platform.registration_token}), timeout=30)
    assert right.status_code == 200
    unknown = browser.get(base + "/lti/register?link=made-up&openid_configuration=" + config,
                          headers={"Accept": "application/json"}, timeout=30)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_registration_link")
