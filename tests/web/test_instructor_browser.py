"""The instructor's pages in headless Chromium against a live server (embedded default, real
sandbox): sign in with an instructor key (no LMS), see the class (the SVG histogram, item
statistics, the named mistakes), set a score by hand on a submission, and see the learner's page
show it with the comment; the regrade preview. axe-core finds no serious or critical violation
on any of them. Screenshots: tests/web/screenshots/ (or ``GRADER_SCREENSHOTS``).

The class, by hand: a course copy of attention-basics (sdpa 10, quadratic-cost 5, no-positions 1,
key B). Three learners divide by d_k (sdpa 8, diagnosis scale_by_d_k), two write correct code
(10); everybody answers the choice: B for the d_k learners (1), A for the others (0); nobody
writes the text. Totals: 9 x3, 10 x2."""
from __future__ import annotations

import pytest

from tests.web.conftest import axe_violations
from tests.web.test_browser import CORRECT, DIVIDES_BY_D_K, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def class_server(live_server):
    from grader.bootstrap import KEY_FILE
    from pathlib import Path

    key = (Path(live_server.config["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    api = live_server.app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    assert api.post("/api/v1/assignments/attention-basics/copy",
                    json={"id": "week-1", "title": "Week 1: attention",
                          "published": True}).status_code == 201
    ids = []
    for number, (code, choice) in enumerate([(DIVIDES_BY_D_K, "B")] * 3 + [(CORRECT, "A")] * 2):
        ids.append(api.post("/api/v1/assignments/week-1/submissions", json={
            "learner_id": f"learner-{number}", "responses": {
                "sdpa": {"code": code}, "no-positions": {"choice": choice}}}).get_json()["id"])
    scores = [api.get(f"/api/v1/submissions/{sid}?wait=60").get_json()["score"] for sid in ids]
    assert scores == [9.0, 9.0, 9.0, 10.0, 10.0]
    return live_server, key, ids


def test_an_instructor_signs_in_with_a_key_and_sees_the_class(class_server, browser,
                                                              screenshots):
    from selenium.webdriver.common.by import By

    server, key, ids = class_server
    browser.get(server.url + "/learn/week-1/instructor")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Sign in as an instructor"
    screenshots(browser, "20-instructor-sign-in")
    assert axe_violations(browser) == []
    browser.find_element(By.ID, "key").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "form.sign-in button[type=submit]").click()
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "h1").text ==
             "Instructor view: Week 1: attention")
    svg = browser.find_element(By.CSS_SELECTOR, "svg.histogram")
    counts = [t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.count")]
    # bins of 1.6 points: the three 9s in [8, 9.6), the two 10s in [9.6, 11.2)
    assert counts == ["0", "0", "0", "0", "0", "3", "2", "0", "0", "0"]
    assert "learners" in svg.find_element(By.TAG_NAME, "desc").get_attribute("textContent")
    mistakes = browser.find_element(By.ID, "item-sdpa").find_element(By.XPATH, "..")
    first = mistakes.find_element(By.CSS_SELECTOR, "table.numbers tbody tr")
    assert first.find_element(By.TAG_NAME, "th").text == "diagnosis:scale_by_d_k"
    assert [td.text for td in first.find_elements(By.TAG_NAME, "td")][:2] == ["3", "60%"]
    screenshots(browser, "21-instructor-class")
    screenshots(browser, "22-instructor-histogram", svg)
    assert axe_violations(browser) == []


def test_a_score_set_by_hand_reaches_the_learner_page(class_server, browser, screenshots):
    from selenium.webdriver.common.by import By

    from grader.web.session import LearnerSession

    server, key, ids = class_server
    browser.get(server.url + f"/instructor/sign-in?next=/learn/week-1/instructor/"
                f"submissions/{ids[0]}")
    browser.find_element(By.ID, "key").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "form.sign-in button[type=submit]").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "override-sdpa"))
    form = browser.find_element(By.ID, "override-sdpa")
    score = form.find_element(By.NAME, "score")
    score.clear()
    score.send_keys("9.5")
    form.find_element(By.NAME, "comment").send_keys("The scaling is right in your derivation.")
    form.find_element(By.CSS_SELECTOR, "button[value=set]").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table.audit tbody tr"))
    cells = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "table.audit tbody td")]
    assert cells[2:6] == ["sdpa", "9.5", "8", "8"]
    screenshots(browser, "23-instructor-override")
    assert axe_violations(browser) == []
    # the learner's own page
    learner = LearnerSession(course_id="local", learner_id="learner-0", role="learner",
                             assignment_id="week-1")
    browser.get(server.sign_in_url(learner, f"/learn/week-1/submissions/{ids[0]}"))
    heading = browser.find_element(By.CSS_SELECTOR, ".result-heading").text
    assert heading == "Score: 10.5 / 16"
    page = browser.find_element(By.TAG_NAME, "main").text
    assert "Your instructor set this score (9.5 of 10; the tests gave 8): The scaling is " \
        "right in your derivation." in page
    screenshots(browser, "24-learner-sees-override")
    assert axe_violations(browser) == []


def test_the_regrade_preview_lists_versions_and_kept_overrides(class_server, browser,
                                                              screenshots):
    from selenium.webdriver.common.by import By

    server, key, ids = class_server
    api = server.app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    api.post(f"/api/v1/submissions/{ids[1]}/overrides",
             json={"item_id": "no-positions", "score": 0.5, "comment": "half"})
    browser.get(server.url + "/instructor/sign-in?next=/learn/week-1/instructor")
    browser.find_element(By.ID, "key").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "form.sign-in button[type=submit]").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "regrade-heading"))
    browser.find_element(By.XPATH, "//button[text()='Preview a regrade']").click()
    wait_for(browser, lambda d: "Status: done" in d.find_element(By.TAG_NAME, "main").text)
    versions = [td.text for td in browser.find_elements(By.CSS_SELECTOR,
                                                        "table.regrade-versions td")]
    assert "key B" in versions and "problem scaled_dot_product_attention" in versions
    rows = {tr.find_elements(By.TAG_NAME, "td")[0].text: [td.text for td in
                                                            tr.find_elements(By.TAG_NAME, "td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, "table.regrade tbody tr")}
    assert rows["learner-1"][1:3] == ["8.5", "8.5"]
    assert rows["learner-1"][5] == "no-positions: 0.5 (1)"
    screenshots(browser, "25-regrade-preview")
    assert axe_violations(browser) == []


def test_at_360_px_the_instructor_pages_do_not_scroll_sideways(class_server, browser,
                                                                screenshots):
    """A phone (360 px): the instructor's wide tables (item statistics, submissions) scroll
    inside their own box (focusable, for the keyboard), the summary lists stack each term above
    its value, so the page itself is 360 px wide (it was 754 px on the class page)."""
    from selenium.webdriver.common.by import By

    from tests.web.test_learner_reading import page_size, screen

    server, key, ids = class_server
    browser.get(server.url + "/instructor/sign-in?next=/learn/week-1/instructor")
    browser.find_element(By.ID, "key").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "form.sign-in button[type=submit]").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "regrade-heading"))
    with screen(browser, 360, 800, mobile=True):
        for name, path in (("class", "/learn/week-1/instructor"), ("index", "/instructor"),
                           ("submission", f"/learn/week-1/instructor/submissions/{ids[0]}")):
            browser.get(server.url + path)
            assert page_size(browser)[0] == 360, name
            screenshots(browser, f"26-instructor-360-{name}")
        browser.get(server.url + "/learn/week-1/instructor")
        # the item statistics (7 columns) are wider than the screen: they scroll in their box
        assert browser.execute_script(
            "return Array.from(document.querySelectorAll('table.numbers'))"
            ".some(t => t.scrollWidth > t.clientWidth)")
        assert axe_violations(browser) == []
