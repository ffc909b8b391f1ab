"""Anonymous launches (issue 27, item 8; LTI Core 1.3, 5.3.6.1: a launch may omit ``sub``): a
learner is let in to practise under a random id, graded as anyone else, and nothing goes to the
LMS; an instructor or a deep-linking request without a user is refused with the reason.

Expected by hand: the right choice alone (no-positions: B) is 1 of attention-basics' 16."""
from __future__ import annotations

from urllib.parse import urljoin

from tests.lti.flows import instructor, launch, learner
from tests.lti.platform import LaunchSpec
from tests.lti.test_passback import submit_form


def test_an_anonymous_learner_practises_without_passback(tool, platform, registered, browser):
    app, base = tool
    store = app.extensions["grader"].store
    item = platform.add_lineitem(score_maximum=16)
    resp = launch(browser, platform, learner("unused", lineitem_id=item, drop=["sub"]))
    assert resp.status_code == 303, resp.text
    html = submit_form(browser, base, urljoin(base, resp.headers["Location"]),
                       {"no-positions": "B"})
    assert "Score: 1 / 16" in html
    [submission] = store.submissions_of("local", "attention-basics")
    assert submission.learner_id.startswith("practice-lti-") and submission.score == 1.0
    assert store.lti.grade_targets_of_platform(registered["id"]) == []
    assert store.webhooks.list("local", channel="lti-ags") == []
    assert platform.scores == []
    # a second anonymous launch is another practice learner
    again = launch(browser, platform, learner("unused", lineitem_id=item, drop=["sub"]))
    assert again.status_code == 303


def test_anonymous_instructors_and_deep_linking_are_refused(tool, platform, registered,
                                                            browser):
    resp = launch(browser, platform, instructor(drop=["sub"]), )
    assert resp.status_code == 400 and "only learners may practise anonymously" in resp.text
    picker = LaunchSpec(sub="x", roles=instructor().roles, message_type="LtiDeepLinkingRequest",
                        drop=["sub"])
    resp = launch(browser, platform, picker)
    assert resp.status_code == 400 and "picking assignments needs to know" in resp.text
