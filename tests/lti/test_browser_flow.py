"""The whole LTI flow in headless Chromium: the simulated LMS shows the tool in an iframe; a Learner
launches, the learner page opens, a correct SDPA and one that divides by d_k are submitted, the
feedback with the heatmaps appears, and the LMS receives both scores; after the instructor changes
the assignment and regrades, the LMS receives the new score; an Instructor deep-links an assignment.
Screenshots go to tests/web/screenshots/ (lti-*.png).

Expected scores, by hand. The course's assignment ``lti-attention`` has one code item, sdpa, worth
10 points. A correct SDPA passes every test: 10 / 10. Dividing the scores by d_k instead of
sqrt(d_k) fails exactly the scaling tests (the sdpa problem keeps d_k = 1 outside its scaling
category), and scaling weighs 2.0 of the categories' 10.0: 10 - 2 = 8 / 10. The instructor then
makes the item worth 20 points; the regrade scores the same tests against the new points:
20 * 8 / 10 = 16 / 20, published for the learner's latest submission (the d_k one) only.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests

from tests.lti.flows import instructor, learner
from tests.web.conftest import _chromium, axe_violations, screenshots  # noqa: F401 (fixtures)
from tests.web.test_browser import CORRECT, DIVIDES_BY_D_K, set_code

pytestmark = pytest.mark.slow

ASSIGNMENT = {
    "id": "lti-attention", "title": "Attention through the LMS", "published": True,
    "items": [{"id": "sdpa", "kind": "code", "points": 10,
               "problem": "scaled_dot_product_attention",
               "prompt": "Implement scaled_dot_product_attention(Q, K, V, mask=None) with NumPy.",
               "limits": {"wall_seconds": 5, "cpu_seconds": 4}}]}


def wait_for(driver, condition, timeout=60):
    """Wait for ``condition(driver)``; elements replaced while it looks are looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def heading_id(driver) -> str | None:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, "#result-body .result-heading")
    return found[0].get_attribute("id") if found else None


def submit_and_wait(driver, previous_heading: str | None) -> dict:
    """Press submit, wait until a new result is shown; returns the page's ``graderTiming``
    (``submitted`` and ``shown``: ``performance.now()`` in ms when the button was pressed and
    when the feedback was in the page)."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "submit-button").click()

    def new_result(d):
        timing = d.execute_script("return window.graderTiming")
        return bool(timing and timing.get("shown")) and heading_id(d) not in (None,
                                                                              previous_heading)

    wait_for(driver, new_result)
    return driver.execute_script("return window.graderTiming")


@pytest.fixture
def chrome(_chromium):  # noqa: F811 (the session's Chromium, imported above)
    _chromium.delete_all_cookies()
    _chromium.get("about:blank")
    yield _chromium
    _chromium.switch_to.default_content()
    _chromium.delete_all_cookies()


@pytest.fixture
def course_assignment(tool, instructor_headers):
    resp = requests.post(tool[1] + "/api/v1/assignments", json=ASSIGNMENT,
                         headers=instructor_headers, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()


@pytest.fixture
def instructor_headers(tool):
    from grader.bootstrap import KEY_FILE

    key = (Path(tool[0].config["GRADER"]["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    return {"Authorization": f"Bearer {key}"}


def open_in_lms(driver, platform, spec):
    """Open the LMS's course page and switch into the tool's iframe once it shows our page."""
    from selenium.webdriver.common.by import By

    driver.switch_to.default_content()
    driver.get(platform.course_page(spec))
    frame = driver.find_element(By.ID, "tool")
    driver.switch_to.frame(frame)
    wait_for(driver, lambda d: d.find_elements(By.TAG_NAME, "h1")
             and d.execute_script("return document.readyState") == "complete")
    return frame


def wait_scores(platform, count: int, timeout: float = 60.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while len(platform.scores) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(platform.scores) >= count, platform.scores
    return platform.scores


def settled_lti_deliveries(app, count: int, timeout: float = 60.0) -> list:
    """The local course's lti-ags deliveries once every applied regrade is done, ``count`` of
    them exist and none is pending (or as they are after ``timeout`` s)."""
    from sqlalchemy import select

    from grader.store.models import RegradeRun

    store = app.extensions["grader"].store
    deadline = time.monotonic() + timeout
    while True:
        with store.sessions() as session:
            runs = list(session.execute(select(RegradeRun.status).where(
                RegradeRun.dry_run.is_(False))).scalars())
        rows = store.webhooks.list("local", channel="lti-ags")
        if (runs and all(r in ("done", "failed") for r in runs) and len(rows) >= count
                and all(r.status != "pending" for r in rows)) or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def test_learner_launch_submit_feedback_passback_and_regrade(tool, platform, registered, chrome,
                                                             screenshots, course_assignment,
                                                             instructor_headers):
    from selenium.webdriver.common.by import By

    item = platform.add_lineitem(label="Attention through the LMS", score_maximum=10)
    spec = learner("learner-101", lineitem_id=item, custom={"assignment_id": "lti-attention"})
    frame = open_in_lms(chrome, platform, spec)
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Attention through the LMS"
    assert "Ada Lovelace" in chrome.find_element(By.CSS_SELECTOR, ".who").text
    chrome.switch_to.default_content()
    screenshots(chrome, "lti-01-learner-page-in-lms")
    chrome.switch_to.frame(frame)
    assert axe_violations(chrome) == []

    set_code(chrome, "response-sdpa", CORRECT)
    timing = submit_and_wait(chrome, None)
    correct_seconds = (timing["shown"] - timing["submitted"]) / 1000
    heading = chrome.find_element(By.CSS_SELECTOR, "#result-body .result-heading")
    assert heading.text == "Score: 10 / 10"
    assert len(chrome.find_elements(By.CSS_SELECTOR, "#result-body svg.heatmap")) == 6

    set_code(chrome, "response-sdpa", DIVIDES_BY_D_K)
    timing = submit_and_wait(chrome, heading_id(chrome))
    divided_seconds = (timing["shown"] - timing["submitted"]) / 1000
    assert chrome.find_element(By.CSS_SELECTOR, "#result-body .result-heading").text == \
        "Score: 8 / 10"
    figures = chrome.find_elements(By.CSS_SELECTOR, "#result-body figure")
    assert "differ from the expected" in figures[0].text
    screenshots(chrome, "lti-02a-feedback-heatmaps",
                chrome.find_element(By.CSS_SELECTOR, "#result-body .item-result"))
    chrome.switch_to.default_content()
    screenshots(chrome, "lti-02-feedback-divides-by-d-k-in-lms")
    print(f"LTI browser flow, submit -> feedback shown: correct {correct_seconds:.2f} s, "
          f"divides by d_k {divided_seconds:.2f} s")

    # the LMS received both scores, in order, with the values worked out above
    first, second = [s["body"] for s in wait_scores(platform, 2)[:2]]
    assert [s["lineitem"] for s in platform.scores[:2]] == [item, item]
    for body, given in ((first, 10.0), (second, 8.0)):
        assert {k: body[k] for k in ("userId", "scoreGiven", "scoreMaximum", "activityProgress",
                                     "gradingProgress")} == {
            "userId": "learner-101", "scoreGiven": given, "scoreMaximum": 10.0,
            "activityProgress": "Completed", "gradingProgress": "FullyGraded"}
    assert first["timestamp"] < second["timestamp"]
    assert second["comment"].startswith("Graded: 8 / 10 points")

    # the instructor makes the item worth 20 points and regrades from the instructor view
    changed = {**ASSIGNMENT, "items": [{**ASSIGNMENT["items"][0], "points": 20}]}
    resp = requests.put(tool[1] + "/api/v1/assignments/lti-attention", json=changed,
                        headers=instructor_headers, timeout=10)
    assert resp.status_code in (200, 201), resp.text
    open_in_lms(chrome, platform, instructor("teacher-1", custom={
        "assignment_id": "lti-attention"}))
    rows = chrome.find_elements(
        By.CSS_SELECTOR, "section[aria-labelledby=submissions-heading] table tbody tr")
    assert len(rows) == 2
    [store_button] = [b for b in chrome.find_elements(By.CSS_SELECTOR, "form button")
                      if b.text == "Regrade and store the new scores"]
    store_button.click()
    [regraded] = [s["body"] for s in wait_scores(platform, 3)[2:]]
    assert {k: regraded[k] for k in ("userId", "scoreGiven", "scoreMaximum",
                                     "gradingProgress")} == {
        "userId": "learner-101", "scoreGiven": 16.0, "scoreMaximum": 20.0,
        "gradingProgress": "FullyGraded"}
    assert regraded["comment"].startswith("Regraded: 16 / 20 points")
    assert regraded["timestamp"] > second["timestamp"]
    # the older (correct) submission's regrade publishes nothing: once the applied regrade is
    # done, every score it sends is a delivery row (made before it is done); there are three,
    # each settled, so nothing more can be sent (waited for, never slept for)
    rows = settled_lti_deliveries(tool[0], 3)
    assert sorted(r.status for r in rows) == ["delivered"] * 3
    assert len(platform.scores) == 3
    chrome.switch_to.default_content()
    screenshots(chrome, "lti-03-instructor-view-after-regrade")


def test_instructor_deep_links_in_the_browser(tool, platform, registered, chrome, screenshots):
    from selenium.webdriver.common.by import By

    open_in_lms(chrome, platform, instructor("teacher-2", message_type="LtiDeepLinkingRequest",
                                             custom={}))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Pick an assignment to link"
    assert axe_violations(chrome) == []
    chrome.find_element(By.CSS_SELECTOR, "input[value='attention-code']").click()
    chrome.switch_to.default_content()
    screenshots(chrome, "lti-04-deep-linking-picker")
    chrome.switch_to.frame(chrome.find_element(By.ID, "tool"))
    chrome.find_element(By.CSS_SELECTOR, "button[type='submit']").click()
    wait_for(chrome, lambda d: platform.deep_link_responses)
    [response] = platform.deep_link_responses
    [item] = response["claims"]["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"assignment_id": "attention-code"}
    assert item["url"] == tool[1] + "/lti/launch"
    assert item["lineItem"]["resourceId"] == "attention-code"


def test_a_tampered_launch_shows_a_clear_refusal_in_the_lms(tool, platform, registered, chrome,
                                                           screenshots):
    from selenium.webdriver.common.by import By

    open_in_lms(chrome, platform, learner("learner-102", tamper=True))
    assert chrome.find_element(By.TAG_NAME, "h1").text == "This launch could not be verified"
    assert "signature does not verify" in chrome.find_element(By.CSS_SELECTOR, ".reason").text
    assert axe_violations(chrome) == []
    chrome.switch_to.default_content()
    screenshots(chrome, "lti-05-refused-tampered-launch")
