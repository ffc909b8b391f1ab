"""Deep Linking 2.0: an instructor picks an assignment; the platform receives a signed
LtiDeepLinkingResponse it verifies with the tool's JWKS, and creates the link and its line item."""
from __future__ import annotations

import time

import jwt

from tests.lti.flows import instructor, launch, learner
from tests.lti.platform import DL, LTI, parse_forms

DEEP = "LtiDeepLinkingRequest"


def test_instructor_deep_links_an_assignment(tool, platform, registered, browser):
    picker = launch(browser, platform, instructor(message_type=DEEP, custom={}))
    assert picker.status_code == 200, picker.text
    [form] = parse_forms(picker.text)
    offered = [form["fields"]["assignment_id"], *form["fields"]["_radio_assignment_id"]]
    assert {"attention-basics", "attention-code"} <= set(offered)
    assert 'for="a-' in picker.text  # every choice is labelled
    fields = {"token": form["fields"]["token"], "assignment_id": "attention-basics"}
    answer = browser.post(tool[1] + form["action"], data=fields, timeout=10)
    assert answer.status_code == 200
    [autopost] = parse_forms(answer.text)
    assert autopost["action"] == platform.url + "/deep_link_return"
    before = time.time()
    returned = browser.post(autopost["action"], data=autopost["fields"], timeout=10)
    assert returned.status_code == 200  # the platform verified the JWT with /lti/jwks

    [received] = platform.deep_link_responses
    claims, header = received["claims"], received["header"]
    jwks = browser.get(tool[1] + "/lti/jwks", timeout=10).json()
    assert header["alg"] == "RS256" and header["kid"] == jwks["keys"][0]["kid"]
    assert (claims["iss"], claims["aud"]) == (platform.client_id, platform.issuer)
    assert claims[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[LTI + "version"] == "1.3.0"
    assert claims[LTI + "deployment_id"] == platform.deployment_id
    assert claims[DL + "data"] == "platform-data-42"  # echoed as the spec requires
    assert len(claims["nonce"]) >= 16
    assert before - 5 <= claims["iat"] <= time.time() + 1
    assert claims["exp"] - claims["iat"] == 300
    [item] = claims[DL + "content_items"]
    # attention-basics: sdpa 10 + quadratic-cost 5 + no-positions 1 = 16 points
    assert item == {
        "type": "ltiResourceLink", "title": item["title"], "text": item["text"],
        "url": tool[1] + "/lti/launch", "custom": {"assignment_id": "attention-basics"},
        "lineItem": {"scoreMaximum": 16.0, "label": item["title"],
                     "resourceId": "attention-basics", "tag": "grade"}}
    assert item["title"]


def test_the_link_made_by_deep_linking_launches_its_assignment(tool, platform, registered,
                                                               browser):
    picker = launch(browser, platform, instructor(message_type=DEEP, custom={}))
    [form] = parse_forms(picker.text)
    answer = browser.post(tool[1] + form["action"], timeout=10, data={
        "token": form["fields"]["token"], "assignment_id": "attention-code"})
    [autopost] = parse_forms(answer.text)
    browser.post(autopost["action"], data=autopost["fields"], timeout=10)
    [item] = platform.deep_link_responses[0]["claims"][DL + "content_items"]
    # the platform now launches a learner into that link, with the item's custom parameters
    resp = launch(browser, platform, learner(custom=item["custom"]))
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/learn/attention-code")


def test_learner_cannot_deep_link_and_pick_tokens_cannot_be_forged(tool, platform, registered,
                                                                   browser):
    resp = launch(browser, platform, learner(message_type=DEEP, custom={}))
    assert resp.status_code == 403 and "Only an instructor" in resp.text
    picker = launch(browser, platform, instructor(message_type=DEEP, custom={}))
    [form] = parse_forms(picker.text)
    token = form["fields"]["token"]
    forged = token[:-3] + ("aaa" if token[-3:] != "aaa" else "bbb")
    resp = browser.post(tool[1] + form["action"], timeout=10,
                        headers={"Accept": "application/json"},
                        data={"token": forged, "assignment_id": "attention-basics"})
    assert (resp.status_code, resp.json()["code"]) == (400, "invalid_token")
    resp = browser.post(tool[1] + form["action"], timeout=10,
                        headers={"Accept": "application/json"},
                        data={"token": token, "assignment_id": "nope"})
    assert (resp.status_code, resp.json()["field"]) == (400, "assignment_id")


def test_deep_linking_refuses_platforms_that_do_not_take_links(tool, platform, registered,
                                                               browser):
    settings = {"deep_link_return_url": platform.url + "/deep_link_return",
                "accept_types": ["file", "html"]}
    resp = launch(browser, platform, instructor(message_type=DEEP, custom={}, claims={
        DL + "deep_linking_settings": settings}))
    assert resp.status_code == 400 and "ltiResourceLink" in resp.text


def test_jwks_serves_rsa_keys_with_kid(tool):
    import requests

    resp = requests.get(tool[1] + "/lti/jwks", timeout=10)
    [key] = resp.json()["keys"]
    assert {key["kty"], key["alg"], key["use"], key["e"]} == {"RSA", "RS256", "sig", "AQAB"}
    assert "d" not in key and "p" not in key  # public parts only
    assert len(jwt.utils.base64url_decode(key["n"])) == 256  # RSA 2048
    assert resp.headers["Cache-Control"] == "public, max-age=300"
