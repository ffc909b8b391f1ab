"""Red-team finding 4: the deep-linking pick token worked for an hour, any number of times, without
a session. A pick is now stored like a login state: used once (one conditional update; a second
post, concurrent or not, is 409 ``pick_used``), only with the token of the launch that opened it,
and only in the browser that launched (its cookie)."""
from __future__ import annotations

import threading
from datetime import timedelta

import requests
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import update

from grader.store.lti_models import LtiDeepLinkPick
from grader.store.models import utcnow
from tests.lti.flows import instructor, launch
from tests.lti.platform import parse_forms

DEEP = "LtiDeepLinkingRequest"


def open_picker(tool, platform, browser):
    picker = launch(browser, platform, instructor(message_type=DEEP, custom={}))
    assert picker.status_code == 200, picker.text[:300]
    [form] = parse_forms(picker.text)
    return tool[1] + form["action"], form["fields"]["token"]


def pick(browser, action, token, assignment="attention-basics"):
    return browser.post(action, data={"token": token, "assignment_id": assignment},
                        headers={"Accept": "application/json"}, timeout=10)


def test_a_pick_is_used_once(tool, platform, registered, browser):
    action, token = open_picker(tool, platform, browser)
    first = pick(browser, action, token)
    assert first.status_code == 200 and parse_forms(first.text)[0]["fields"]["JWT"]
    for assignment in ("attention-basics", "attention-code"):  # the same or another one
        again = pick(browser, action, token, assignment)
        assert (again.status_code, again.json()["code"]) == (409, "pick_used")
    # the answer said to open the tool again; a new launch gives a new pick that works
    action, token = open_picker(tool, platform, browser)
    assert pick(browser, action, token, "attention-code").status_code == 200


def test_concurrent_posts_of_one_pick_link_one_assignment(tool, platform, registered, browser):
    action, token = open_picker(tool, platform, browser)
    cookies = browser.cookies.get_dict()
    barrier, codes = threading.Barrier(8), []

    def post():
        with requests.Session() as tab:  # eight tabs of the same browser
            tab.cookies.update(cookies)
            barrier.wait()
            codes.append(pick(tab, action, token).status_code)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200] + [409] * 7


def test_another_browser_cannot_use_the_token_and_does_not_use_it_up(tool, platform, registered,
                                                                     browser):
    action, token = open_picker(tool, platform, browser)
    with requests.Session() as stranger:  # has the token (e.g. from a log), not the cookie
        resp = pick(stranger, action, token)
        assert (resp.status_code, resp.json()["code"]) == (403, "pick_other_browser")
    assert pick(browser, action, token).status_code == 200  # still there for its instructor


def test_a_token_names_its_launch(tool, platform, registered, browser):
    first_action, first_token = open_picker(tool, platform, browser)
    _, second_token = open_picker(tool, platform, browser)
    secret = tool[0].config["GRADER"]["GRADER_SECRET_KEY"]
    serializer = URLSafeTimedSerializer(secret, salt="lti-deep-linking")
    first, second = serializer.loads(first_token), serializer.loads(second_token)
    assert first["state"] != second["state"] and first["pick"] != second["pick"]
    # even signed with the service secret, the first pick under the second launch's state is
    # not a pick this tool issued
    mixed = serializer.dumps({"pick": first["pick"], "state": second["state"]})
    resp = pick(browser, first_action, mixed)
    assert (resp.status_code, resp.json()["code"]) == (400, "token_expired")
    # and a browser's cookie for one pick does not open another: drop the second's cookie
    browser.cookies.clear(domain="127.0.0.1", path="/lti/",
                          name="lti_pick_" + second["pick"])
    resp = pick(browser, first_action, second_token)
    assert (resp.status_code, resp.json()["code"]) == (403, "pick_other_browser")
    assert pick(browser, first_action, first_token).status_code == 200


def test_an_expired_pick_is_refused(tool, platform, registered, browser):
    action, token = open_picker(tool, platform, browser)
    store = tool[0].extensions["grader"].store
    with store.sessions.begin() as session:
        session.execute(update(LtiDeepLinkPick).values(
            expires_at=utcnow() - timedelta(seconds=1)))
    resp = pick(browser, action, token)
    assert (resp.status_code, resp.json()["code"]) == (400, "token_expired")


def test_a_refused_assignment_does_not_use_up_the_pick(tool, platform, registered, browser):
    action, token = open_picker(tool, platform, browser)
    assert pick(browser, action, token, "no-such-assignment").status_code == 400
    assert pick(browser, action, token).status_code == 200
