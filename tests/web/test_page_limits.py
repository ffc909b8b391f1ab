"""Red-team finding 1: the learner page's form posts were outside the API's rate limiter, and a
learner could queue any number of submissions (six sleeping ones made a later correct submission
wait 90 s). Now each post counts per signed-in learner and per client address (429 with
``Retry-After`` and the form again), and a learner with ``WEB_MAX_PENDING`` submissions queued or
running gets 409 with a link to the one being graded; anonymous practice learners, which cost a
cookie to make, are also capped per address. The REST API is unchanged.

Most tests pause the queue (``enqueue`` records instead of grading) so that submissions stay
``queued`` for as long as the test needs."""
from __future__ import annotations

import json
import re
import threading
from dataclasses import asdict
from urllib.parse import quote

import pytest

from grader.api.ratelimit import PageLimits
from grader.app import close_app
from grader.web.session import LearnerSession

LEARN = "/learn/attention-basics"
NO_LIMITS = {"WEB_SUBMIT_RATE_LIMIT": "off", "WEB_SUBMIT_ADDRESS_RATE_LIMIT": "off",
             "WEB_MAX_PENDING": 0, "WEB_MAX_PENDING_PER_ADDRESS": 0}


@pytest.fixture
def make_app(embedded_config):
    """``make_app(overrides, paused=True)``: an app on the embedded default whose queue, when
    ``paused``, only records the submissions it is handed."""
    from flask import redirect, request

    from grader.app import create_app
    from grader.web.session import begin

    apps = []

    def factory(overrides: dict | None = None, paused: bool = True):
        app = create_app({**embedded_config, **(overrides or {})})
        dispatcher = app.extensions["grader"].dispatcher
        if paused:
            app.config["QUEUED"] = []
            dispatcher.enqueue = app.config["QUEUED"].append

        def sign_in():
            begin(LearnerSession(**json.loads(request.args["learner"])))
            return redirect(request.args.get("next", "/learn"))

        app.add_url_rule("/_test/sign-in", "test_sign_in", sign_in)
        apps.append(app)
        return app

    yield factory
    for app in apps:
        close_app(app)


def browser(app, address: str = "127.0.0.1"):
    """A test client from ``address`` that opened the learner page; returns (client, token)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    page = client.get(LEARN)
    assert page.status_code == 200, page.status_code
    return client, re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))[1]


def sign_in(app, learner: LearnerSession, address: str = "127.0.0.1"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    data = quote(json.dumps(asdict(learner)))
    assert client.get(f"/_test/sign-in?learner={data}&next={LEARN}").status_code == 302
    page = client.get(LEARN).get_data(as_text=True)
    return client, re.search(r'name="csrf_token" value="([^"]+)"', page)[1]


def post(client, token, choice="B", nonce=None, json_answer=False):
    data = {"csrf_token": token, "response-no-positions": choice}
    if nonce:
        data["form_nonce"] = nonce
    headers = {"Accept": "application/json"} if json_answer else {}
    return client.post(LEARN, data=data, headers=headers)


def stored(app) -> int:
    from grader.store.models import Submission

    with app.extensions["grader"].store.sessions() as session:
        return session.query(Submission).count()


def test_a_learner_over_the_rate_gets_429_with_retry_after_and_the_form_kept(make_app):
    app = make_app({**NO_LIMITS, "WEB_SUBMIT_RATE_LIMIT": "3 per minute"})
    client, token = browser(app)
    for _ in range(3):
        assert post(client, token).status_code == 303
    refused = post(client, token, choice="C")
    assert refused.status_code == 429
    # a one-minute fixed window: the wait is what is left of it, between 1 and 60 s
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    page = refused.get_data(as_text=True)
    assert "You have submitted too often (the limit is 3 per 1 minute). Nothing was submitted" \
        in page
    assert re.search(r'id="response-no-positions-C"[^>]*checked>', page)  # the answer is kept
    assert stored(app) == 3
    # the page's script gets the same as JSON
    answer = post(client, token, json_answer=True)
    assert answer.status_code == 429 and answer.get_json()["code"] == "rate_limited"
    assert int(answer.headers["Retry-After"]) >= 1


def test_an_address_over_its_rate_is_429_whichever_learner_posts(make_app):
    app = make_app({**NO_LIMITS, "WEB_SUBMIT_ADDRESS_RATE_LIMIT": "4 per minute"})
    # five anonymous learners (five cookies) from one address: the fifth post is refused
    answers = [post(*browser(app, "203.0.113.7")).status_code for _ in range(5)]
    assert answers == [303, 303, 303, 303, 429]
    # another address has its own allowance
    assert post(*browser(app, "203.0.113.8")).status_code == 303
    assert stored(app) == 5


def test_ipv6_clients_are_counted_by_their_64_network(make_app):
    app = make_app({**NO_LIMITS, "WEB_SUBMIT_ADDRESS_RATE_LIMIT": "2 per minute"})
    # 2001:db8:1:2::a and 2001:db8:1:2::b share the /64 2001:db8:1:2::/64; ...:3::a does not
    first = [post(*browser(app, f"2001:db8:1:2::{h}")).status_code for h in ("a", "b", "c")]
    assert first == [303, 303, 429]
    assert post(*browser(app, "2001:db8:1:3::a")).status_code == 303


def test_a_third_pending_submission_is_409_linking_the_one_being_graded(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 2})
    client, token = browser(app)
    first, second = post(client, token), post(client, token)
    assert (first.status_code, second.status_code) == (303, 303)
    third = post(client, token, choice="A")
    assert third.status_code == 409
    page = third.get_data(as_text=True)
    assert "You already have 2 submissions being graded (at most 2 at a time)" in page
    newest = second.headers["Location"]  # .../submissions/<id>?wait=1
    assert f'<a href="{newest}">See the submission being graded</a>' in page
    assert stored(app) == 2
    as_json = post(client, token, json_answer=True)
    assert as_json.status_code == 409
    assert as_json.get_json()["code"] == "submission_pending"
    assert as_json.get_json()["result_url"] == newest
    # once one is graded (here: failed by the sweep's rules) the learner may submit again
    store = app.extensions["grader"].store
    store.fail(app.config["QUEUED"][0], "test: finished")
    assert post(client, token).status_code == 303
    assert stored(app) == 3


def test_a_double_click_at_the_cap_is_still_one_submission(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 2, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    client, token = browser(app)
    assert post(client, token, nonce="first").status_code == 303
    once, again = post(client, token, nonce="second"), post(client, token, nonce="second")
    # the replay of the same form (same nonce) answers with the same submission, not a 409
    assert (once.status_code, again.status_code) == (303, 303)
    assert once.headers["Location"] == again.headers["Location"]
    assert stored(app) == 2


def test_anonymous_practice_learners_are_capped_per_address(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 2, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    # three cookies from one address, one post each: dropping the cookie does not help
    answers = [post(*browser(app, "198.51.100.1")) for _ in range(3)]
    assert [a.status_code for a in answers] == [303, 303, 409]
    assert "2 practice submissions from your network address are still being graded" in \
        answers[2].get_data(as_text=True)
    assert post(*browser(app, "198.51.100.2")).status_code == 303
    # LTI learners are learners of their LMS, not of an address: two of them behind the same
    # address (a campus NAT) are capped as learners only
    for n in (1, 2):
        lti_learner = LearnerSession("local", f"lms-user-{n}", "learner", "attention-basics",
                                     lti={"platform_id": "p"})
        client, token = sign_in(app, lti_learner, "198.51.100.1")
        assert [post(client, token).status_code for _ in range(3)] == [303, 303, 409]


def test_the_pending_cap_holds_under_concurrent_posts(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 2})
    learner = LearnerSession("local", "lms-racer", "learner", "attention-basics",
                             lti={"platform_id": "p"})
    sessions = [sign_in(app, learner) for _ in range(8)]  # eight tabs of one learner
    barrier, codes = threading.Barrier(8), []

    def one(client, token):
        barrier.wait()
        codes.append(post(client, token).status_code)

    threads = [threading.Thread(target=one, args=s) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [303, 303] + [409] * 6
    assert stored(app) == 2


def test_regrades_count_against_the_instructor(make_app):
    app = make_app({**NO_LIMITS, "WEB_SUBMIT_RATE_LIMIT": "1 per minute"})
    teacher = LearnerSession("local", "teacher", "instructor", "attention-basics")
    client, _ = sign_in(app, teacher)
    page = client.get(LEARN + "/instructor").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    first = client.post(LEARN + "/instructor/regrades", data={"csrf_token": token})
    second = client.post(LEARN + "/instructor/regrades", data={"csrf_token": token})
    assert (first.status_code, second.status_code) == (303, 429)
    assert "You have started regrades too often" in second.get_data(as_text=True)
    assert int(second.headers["Retry-After"]) >= 1


def test_a_forged_post_does_not_use_up_the_learners_allowance(make_app):
    app = make_app({**NO_LIMITS, "WEB_SUBMIT_RATE_LIMIT": "1 per minute"})
    client, token = browser(app)
    assert post(client, "forged-token").status_code == 400  # CSRF check first
    assert post(client, token).status_code == 303


def test_the_rest_api_has_no_page_limits(make_app):
    from grader.bootstrap import KEY_FILE
    from pathlib import Path

    app = make_app({"WEB_SUBMIT_RATE_LIMIT": "1 per minute",
                    "WEB_SUBMIT_ADDRESS_RATE_LIMIT": "1 per minute", "WEB_MAX_PENDING": 1})
    key = (Path(app.config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    client = app.test_client()
    body = {"learner_id": "api-learner", "responses": {"no-positions": {"choice": "B"}}}
    codes = [client.post("/api/v1/assignments/attention-basics/submissions", json=body,
                         headers={"Authorization": f"Bearer {key}"}).status_code
             for _ in range(5)]
    assert codes == [202] * 5  # five pending submissions of one learner, as before


def test_limits_settings_are_checked_at_start(make_app):
    with pytest.raises(ValueError, match="WEB|rate limit"):
        make_app({"WEB_SUBMIT_RATE_LIMIT": "ten per minute"})
    limits = PageLimits()
    assert limits.parsed("off") == [] and limits.parsed("") == []
    assert [str(i) for i in limits.parsed("6 per minute;60 per hour")] == [
        "6 per 1 minute", "60 per 1 hour"]


# Issue 20.2: a post that reused a spent form nonce with other answers skipped the per-address
# check (three anonymous learners on one address had 7 slow submissions accepted where the cap
# is 2). Every post that creates a submission runs every check; only a true replay (same nonce,
# same answers) skips them.

def test_a_spent_nonce_with_other_answers_is_counted_against_the_address(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 2, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    # three anonymous learners on one address; each submits its form, then goes Back and
    # submits the same form (its nonce spent) with the other answers
    answers = []
    for n in range(3):
        client, token = browser(app, "192.0.2.10")
        answers += [post(client, token, choice=choice, nonce=f"form-{n}").status_code
                    for choice in ("B", "C", "A")]
    # the cap is 2: the first learner's first and second posts, then nothing more
    assert answers == [303, 303] + [409] * 7
    assert stored(app) == 2
    assert len(app.config["QUEUED"]) == 2
    # another learner on another address is unaffected
    assert post(*browser(app, "192.0.2.99")).status_code == 303
    assert stored(app) == 3


def test_the_true_replay_of_a_spent_nonce_still_answers_at_the_address_cap(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 5, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    client, token = browser(app, "192.0.2.11")
    first = post(client, token, choice="B", nonce="tab")
    second = post(client, token, choice="C", nonce="tab")  # Back, another answer: a new one
    assert (first.status_code, second.status_code) == (303, 303)
    assert first.headers["Location"] != second.headers["Location"]
    # the address is at its cap; the same form with the same answers replays (creates nothing)
    again = post(client, token, choice="B", nonce="tab")
    assert (again.status_code, again.headers["Location"]) == (303, first.headers["Location"])
    assert post(client, token, choice="A", nonce="tab").status_code == 409
    assert stored(app) == 2


def test_a_second_tabs_form_of_another_assignment_with_a_spent_nonce_is_counted(make_app):
    # the form's idempotency key is the learner and the nonce; a form of another assignment
    # (a second tab) posted with a nonce already spent is another request, not a replay
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 5, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    client, token = browser(app, "192.0.2.12")
    assert [post(client, token, nonce=n).status_code for n in ("one", "two")] == [303, 303]
    other = client.get("/learn/attention-code")
    assert other.status_code == 200
    code = "import numpy as np\n\ndef softmax(x, axis=-1):\n    return x\n"
    refused = client.post("/learn/attention-code", data={
        "csrf_token": token, "form_nonce": "one", "response-softmax": code})
    assert refused.status_code == 409
    assert "2 practice submissions from your network address are still being graded" in \
        refused.get_data(as_text=True)
    assert stored(app) == 2


def test_the_address_cap_holds_under_concurrent_posts(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    tabs = [browser(app, "192.0.2.13") for _ in range(8)]  # eight cookies on one address
    barrier, codes = threading.Barrier(8), []

    def one(client, token):
        barrier.wait()
        codes.append(post(client, token).status_code)

    threads = [threading.Thread(target=one, args=tab) for tab in tabs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [303, 303] + [409] * 6
    assert stored(app) == 2


def test_a_spent_key_with_another_request_is_counted_against_the_learners_cap(make_app):
    from grader.store.pending import TooManyPending, create_capped

    app = make_app({**NO_LIMITS})
    store = app.extensions["grader"].store
    first, created = create_capped(store, 1, "attention-basics", "amy",
                                   {"no-positions": {"choice": "B"}}, idempotency_key="k",
                                   request_sha256="a" * 64)
    assert created
    # the same key and digest: a replay, answered with the first submission at the cap
    again, created = create_capped(store, 1, "attention-basics", "amy",
                                   {"no-positions": {"choice": "B"}}, idempotency_key="k",
                                   request_sha256="a" * 64)
    assert (again.id, created) == (first.id, False)
    # the same key with another request is counted: the learner is at the cap
    with pytest.raises(TooManyPending) as busy:
        create_capped(store, 1, "attention-basics", "amy", {"no-positions": {"choice": "C"}},
                      idempotency_key="k", request_sha256="b" * 64)
    assert busy.value.pending == [first.id]
    assert stored(app) == 1


def test_a_double_click_of_an_edited_form_is_one_new_submission(make_app):
    app = make_app({**NO_LIMITS, "WEB_MAX_PENDING": 5, "WEB_MAX_PENDING_PER_ADDRESS": 2})
    client, token = browser(app, "192.0.2.14")
    first = post(client, token, choice="B", nonce="page")
    # Back, another answer, and a double click: one new attempt, answered twice
    edited, again = (post(client, token, choice="C", nonce="page") for _ in range(2))
    assert (first.status_code, edited.status_code, again.status_code) == (303, 303, 303)
    assert edited.headers["Location"] == again.headers["Location"] != first.headers["Location"]
    assert stored(app) == 2
    # the address is at its cap: a third answer on the same page is refused
    assert post(client, token, choice="A", nonce="page").status_code == 409
    assert stored(app) == 2
