"""Red-team finding 3: a registered platform ran script on the tool's origin: a deep-linking launch
with ``deep_link_return_url: "javascript:..."`` became the autopost form's action, and ``/lti/*``
pages sent no Content-Security-Policy. Every URL a launch hands the tool is checked (https; http
only locally or at the platform's registered address), and every LTI page has a CSP whose
``form-action`` allows us and, on the autopost page, the platform's return origin only."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.lti.launch_urls import checked_url, csp_origin
from grader.lti.refusals import LtiRefused
from tests.lti.flows import instructor, launch, learner
from tests.lti.platform import AGS, DL, LTI, SCOPE, parse_forms

DEEP = "LtiDeepLinkingRequest"
UNSAFE = [
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",          # leading space, which browsers strip
    "java\tscript:alert(1)",         # browsers drop tabs and newlines inside URLs
    "java\nscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/return",         # scheme-relative
    "http://evil.example/return",    # plain http to a host that is neither local nor the LMS
    "https://user:pw@lms.example.edu/return",
    "https://lms.example.edu\\@evil.example/",
    "https:///return",               # no host
    "https://lms.example.edu;script-src/x",   # not a host name: would break the CSP
    "ftp://lms.example.edu/return",
    "",
]


def deep_link_spec(return_url):
    settings = {"deep_link_return_url": return_url, "accept_types": ["ltiResourceLink"],
                "data": "d"}
    return instructor(message_type=DEEP, custom={}, claims={DL + "deep_linking_settings": settings})


@pytest.mark.parametrize("return_url", UNSAFE)
def test_an_unsafe_deep_link_return_url_is_refused_before_any_picker(tool, platform, registered,
                                                                    browser, return_url):
    resp = launch(browser, platform, deep_link_spec(return_url))
    assert resp.status_code == 400, resp.text[:300]
    assert "<code>unsafe_url</code>" in resp.text
    assert "deep_linking_settings.deep_link_return_url" in resp.text
    assert not parse_forms(resp.text)  # no picker, so no autopost to that URL either
    assert resp.headers["Content-Security-Policy"].endswith("form-action 'self'")


def test_an_https_return_url_is_the_autopost_action_and_the_only_other_form_target(
        tool, platform, registered, browser):
    picker = launch(browser, platform, deep_link_spec("https://lms.example.edu:8443/dl/return"))
    assert picker.status_code == 200
    assert picker.headers["Content-Security-Policy"].endswith("form-action 'self'")
    [form] = parse_forms(picker.text)
    answer = browser.post(tool[1] + form["action"], timeout=10, data={
        "token": form["fields"]["token"], "assignment_id": "attention-basics"})
    assert answer.status_code == 200
    [autopost] = parse_forms(answer.text)
    assert autopost["action"] == "https://lms.example.edu:8443/dl/return"
    policy = answer.headers["Content-Security-Policy"]
    assert "form-action 'self' https://lms.example.edu:8443" in policy
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy


@pytest.mark.parametrize("return_url", ["javascript:alert(1)", "http://evil.example/back"])
def test_an_unsafe_launch_presentation_return_url_refuses_the_launch(tool, platform, registered,
                                                                    browser, return_url):
    spec = learner(claims={LTI + "launch_presentation": {"document_target": "iframe",
                                                         "return_url": return_url}})
    resp = launch(browser, platform, spec)
    assert resp.status_code == 400 and "launch_presentation.return_url" in resp.text
    assert "<code>unsafe_url</code>" in resp.text


@pytest.mark.parametrize("claim", ["lineitem", "lineitems"])
def test_unsafe_grade_service_urls_refuse_the_launch(tool, platform, registered, browser, claim):
    endpoint = {"scope": [SCOPE + "lineitem", SCOPE + "score"],
                "lineitems": platform.url + "/lineitems",
                claim: "http://169.254.169.254/latest/meta-data/"}  # cloud metadata: SSRF
    resp = launch(browser, platform, learner(claims={AGS: endpoint}))
    assert resp.status_code == 400 and f"endpoint.{claim}" in resp.text


def test_every_lti_page_sends_the_policy(tool, platform, registered, browser):
    refusal = browser.post(tool[1] + "/lti/launch", data={"state": "nope"}, timeout=10)
    assert refusal.status_code == 401
    for page in (refusal, launch(browser, platform, deep_link_spec(platform.url + "/back"))):
        policy = page.headers["Content-Security-Policy"]
        assert policy == ("default-src 'self'; script-src 'self'; style-src 'self'; "
                          "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                          "form-action 'self'")
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Referrer-Policy"] == "same-origin"
    login = browser.get(platform.login_initiation(learner()), allow_redirects=False, timeout=10)
    assert login.status_code == 302 and "Referrer-Policy" not in login.headers


# -- the rule itself, without a launch ------------------------------------------------------------
PLATFORM = SimpleNamespace(issuer="http://moodle.school.internal",
                           auth_login_url="http://moodle.school.internal/mod/lti/auth.php",
                           auth_token_url="https://sso.school.example/token",
                           key_set_url="https://sso.school.example/jwks", auth_audience=None)


@pytest.mark.parametrize("url", [
    "https://canvas.example.edu/courses/1/external_content/success/external_tool_redirect",
    "http://127.0.0.1:8001/return", "http://localhost/return", "http://[::1]:5000/r",
    "http://dev.localhost/return",
    "http://moodle.school.internal/mod/lti/contentitem_return.php",  # the registered http host
    "https://[2001:db8::1]/return",
])
def test_urls_the_tool_accepts(url):
    assert checked_url(url, "claim", PLATFORM) == url


@pytest.mark.parametrize("url", UNSAFE + [
    "http://moodle.school.internal:8080/x",  # another port than the registered origin
    "http://sso.school.example/x",           # registered over https only
    "http://127.0.0.1.evil.example/x",
])
def test_urls_the_tool_refuses(url):
    with pytest.raises(LtiRefused) as refused:
        checked_url(url, "claim", PLATFORM)
    assert (refused.value.status, refused.value.code, refused.value.field) == (
        400, "unsafe_url", "claim")


def test_csp_origins():
    assert csp_origin("https://lms.example.edu/a?b") == "https://lms.example.edu"
    assert csp_origin("https://lms.example.edu:443/a") == "https://lms.example.edu"
    assert csp_origin("http://127.0.0.1:8001/x") == "http://127.0.0.1:8001"
    assert csp_origin("https://[2001:db8::1]:8443/x") == "https://[2001:db8::1]:8443"


def test_an_id_token_with_a_4301_digit_number_is_a_400_not_a_500(tool, platform, registered,
                                                                 browser):
    """Finding 6 on the LTI side: the id_token's JSON is parsed by PyJWT, which reports Python's
    refusal as a malformed token."""
    import json
    import time

    from jwt.api_jws import PyJWS

    from tests.lti.flows import post_id_token, start_login
    from tests.lti.platform import LEARNER, pem

    login = start_login(browser, platform, learner())
    now = int(time.time())
    claims = json.dumps({"iss": platform.issuer, "aud": platform.client_id, "sub": "u",
                         "iat": now, "exp": now + 300, "nonce": login["nonce"],
                         LTI + "roles": [LEARNER]})
    payload = claims[:-1] + ', "extra": ' + "1" * 4301 + "}"
    token = PyJWS().encode(payload.encode(), pem(platform.key), algorithm="RS256",
                           headers={"kid": platform.kid})
    resp = post_id_token(browser, login, token, json=True)
    assert (resp.status_code, resp.json()["code"]) == (400, "malformed_id_token")
