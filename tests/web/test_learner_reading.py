"""Issue 28, items 4-8, in headless Chromium against a live server (embedded default, real
sandbox), with JavaScript and without (``Emulation.setScriptExecutionDisabled``), at 1280 x 800
(a laptop) and 360 px wide (a phone, ``Emulation.setDeviceMetricsOverride`` with ``mobile``):

- feedback that reads once: a failing SDPA's result page says its diagnosis once, groups the
  failed tests by category with the first group open, and fits two laptop screens;
- phones: no sideways scroll at 360 px, the failed-test message readable;
- limits beside the boxes before submitting, with a live word count (and without JavaScript the
  limit text alone);
- two tabs: two launched assignments of one learner both submit; refusals to the page script
  are JSON and the typed answers stay;
- dark mode (axe-core in the dark scheme), the favicon, due dates with their zone, and the
  ``/learn`` index listing only published assignments.

Expected values, by hand (see test_browser.py for the sdpa split): an SDPA dividing by d_k fails
exactly the scaling category: its 4 hidden tests and the one visible example with d_k != 1
(d_k = 5), 5 of the 37 tests; one diagnosis (scale_by_d_k). Screenshots go to
tests/web/screenshots/ (or ``GRADER_SCREENSHOTS``).
"""
from __future__ import annotations

import html
import json
import re
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from grader.web.session import LearnerSession
from tests.web.conftest import SCREENSHOTS, axe_violations
from tests.web.test_browser import DIVIDES_BY_D_K, set_code, submit_and_wait, wait_for

pytestmark = pytest.mark.slow

PAGE = "/learn/attention-basics"
#: Two laptop screens of 800 px, as the issue asks of a failing submission's page.
TWO_LAPTOP_SCREENS = 1600
#: The sentence of the diagnosis scale_by_d_k (grader/problems/sdpa_mistakes.py).
SCALE_BY_D_K = "divided by d_k instead of sqrt(d_k)"


@contextmanager
def screen(driver, width: int, height: int, mobile: bool = False, javascript: bool = True,
           dark: bool = False):
    """The browser as a screen of ``width`` x ``height`` CSS pixels (a phone when ``mobile``:
    the page's viewport meta applies), with or without JavaScript, in the light or dark
    scheme; undone afterwards."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not javascript})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
    try:
        yield driver
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def full_page(driver, name: str, width: int, height: int, mobile: bool = False) -> Path:
    """A screenshot of the whole page at ``width`` (the emulated screen stretched to the page's
    height, then set back to ``height``)."""
    _, page_height = page_size(driver)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": min(max(page_height, height), 12000), "deviceScaleFactor": 1,
        "mobile": mobile})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    print(f"screenshot: {path}")
    return path


def page_size(driver) -> tuple[int, int]:
    """(scrollWidth, scrollHeight) of the document, CSS pixels."""
    return tuple(driver.execute_script("return [document.documentElement.scrollWidth, "
                                       "document.documentElement.scrollHeight]"))


def browser_http(driver, base: str) -> requests.Session:
    """A requests session holding the browser's cookies (the same learner)."""
    http = requests.Session()
    for cookie in driver.get_cookies():
        http.cookies.set(cookie["name"], cookie["value"])
    return http


def form_fields(page: str) -> dict:
    return {name: html.unescape(value) for name, value in re.findall(
        r'<input type="hidden" name="(csrf_token|form_nonce)" value="([^"]*)"', page)}


def post_divides_by_d_k(driver, base: str) -> str:
    """Submit the SDPA that divides by d_k as the browser's learner with a plain form post
    (no JavaScript); the result page's path once graded."""
    http = browser_http(driver, base)
    page = http.get(base + PAGE).text
    posted = http.post(base + PAGE, data={**form_fields(page), "response-sdpa": DIVIDES_BY_D_K},
                       allow_redirects=False)
    assert posted.status_code == 303, posted.text[:300]
    location = posted.headers["Location"]
    assert http.get(base + location, timeout=60).status_code == 200  # waits for the grade
    return location.split("?")[0]


def api_client(server):
    from grader.bootstrap import KEY_FILE

    key = (Path(server.config["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    api = server.app.test_client()
    api.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    return api


def test_a_failing_sdpa_says_its_diagnosis_once_and_fits_two_laptop_screens(
        live_server, browser, screenshots):
    from selenium.webdriver.common.by import By

    with screen(browser, 1280, 800):
        browser.get(live_server.url + PAGE)
        set_code(browser, "response-sdpa", DIVIDES_BY_D_K)
        submit_and_wait(browser, None)
        link = browser.find_element(By.CSS_SELECTOR, "#attempts-body a").get_attribute("href")
        browser.get(link)
        width, height = page_size(browser)
        item = browser.find_elements(By.CSS_SELECTOR, ".item-result")[0]
        text = item.get_attribute("textContent")  # folded parts included
        # said once: in the item's diagnosis, not again on each of the 5 failed rows
        assert text.count(SCALE_BY_D_K) == 1
        assert SCALE_BY_D_K in item.find_element(By.CSS_SELECTOR, ".summary").text
        groups = item.find_elements(By.CSS_SELECTOR, "details.failed-group")
        assert [g.get_attribute("data-category") for g in groups] == ["scaling"]
        assert groups[0].get_attribute("open") == "true"
        rows = groups[0].find_elements(By.CSS_SELECTOR, "tbody tr.failed")
        assert len(rows) == 5 and all(r.is_displayed() for r in rows)
        assert "5 failed of 5" in groups[0].find_element(By.TAG_NAME, "summary").text
        passed = item.find_element(By.CSS_SELECTOR, "details.passed-tests")
        assert passed.get_attribute("open") is None
        assert passed.find_element(By.TAG_NAME, "summary").text == "Passed tests: 32 of 37"
        # the weights of the failed visible example are in its picture, not again in its row
        visible_row = rows[0].text
        assert "example: cross-attention" in visible_row
        assert "Received output:" in visible_row and "Received weights:" not in visible_row
        full_page(browser, "30-failing-sdpa-result-1280", 1280, 800)
        print(f"failing SDPA result page at 1280 x 800: {width} x {height} px")
        assert width <= 1280 and height <= TWO_LAPTOP_SCREENS
        assert axe_violations(browser) == []


def test_a_grouped_failure_opens_its_first_category_only(live_server, browser, screenshots):
    """An SDPA that ignores the mask and takes the softmax over the query axis fails several
    categories: the first (the order of the tests) is open, the others fold under one line."""
    from selenium.webdriver.common.by import By

    wrong = DIVIDES_BY_D_K.replace("/ d_k", "/ np.sqrt(d_k)").replace(
        "scores.max(axis=-1", "scores.max(axis=-2").replace(
        "weights.sum(axis=-1", "weights.sum(axis=-2")
    browser.get(live_server.url + PAGE)
    set_code(browser, "response-sdpa", wrong)
    submit_and_wait(browser, None)
    item = browser.find_elements(By.CSS_SELECTOR, "#result-body .item-result")[0]
    groups = item.find_elements(By.CSS_SELECTOR, "details.failed-group")
    assert len(groups) > 1
    assert [g.get_attribute("open") for g in groups] == ["true"] + [None] * (len(groups) - 1)
    more = item.find_element(By.CSS_SELECTOR, "details.more-groups")
    assert more.get_attribute("open") is None
    names = [g.get_attribute("data-category") for g in groups]
    assert all(name in more.find_element(By.TAG_NAME, "summary").text for name in names[1:])
    # every failed test is in exactly one group
    caption = item.find_element(By.CSS_SELECTOR, ".failed-heading").text
    failed = int(re.fullmatch(r"Failed tests: (\d+) of 37", caption)[1])
    assert sum(len(g.find_elements(By.CSS_SELECTOR, "tbody tr")) for g in groups) == failed
    screenshots(browser, "31-grouped-failure", item)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_at_360_px_nothing_scrolls_sideways_and_messages_are_readable(
        live_server, browser, screenshots, javascript):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + PAGE)  # the practice learner's cookie
    result = post_divides_by_d_k(browser, live_server.url)
    with screen(browser, 360, 740, mobile=True, javascript=javascript):
        for name, path in (("learner-page", PAGE), ("result", result)):
            browser.get(live_server.url + path)
            width, height = page_size(browser)
            print(f"{name} at 360 px ({'with' if javascript else 'without'} JavaScript): "
                  f"{width} x {height} px")
            assert width <= 360, name
            assert bool(browser.find_elements(By.CSS_SELECTOR, ".cm-editor")) == (
                javascript and name == "learner-page")
            cells = [c for c in browser.find_elements(By.CSS_SELECTOR,
                                                      "tr.failed td.message-cell")
                     if c.is_displayed()]
            assert cells, name
            # stacked rows: the message spans the row (the old table squeezed it to ~80 px,
            # one word a line); more than half the screen is a readable line
            assert all(c.size["width"] > 180 for c in cells), [c.size for c in cells]
            suffix = "js" if javascript else "no-js"
            screenshots(browser, f"32-{name}-360-{suffix}-message", cells[0])
            full_page(browser, f"32-{name}-360-{suffix}", 360, 740, mobile=True)
        # axe runs as a script: allow scripts again (the page, loaded without, stays as it is)
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        assert axe_violations(browser) == []


def _limits_assignment(server) -> None:
    """Course time zone Europe/Berlin; ``limits-1``: a text item whose rubric reads 12 words,
    due 2031-06-01T23:59Z (01:59 on 2 June in Berlin, summer time: UTC+02:00), published; and
    ``draft-1``, a draft."""
    api = api_client(server)
    assert api.patch("/api/v1/course", json={"time_zone": "Europe/Berlin"}).status_code == 200
    rubric = {"id": "short-why", "question": "Why scale by sqrt(d_k)?", "max_points": 1,
              "max_words": 12,
              "criteria": [{"id": "variance", "description": "keeps the variance near 1",
                            "points": 1, "concepts": ["variance"],
                            "feedback": {"met": "Yes.", "missed": "Say what it keeps."}}]}
    created = api.post("/api/v1/assignments", json={
        "id": "limits-1", "title": "Limits first", "due_at": "2031-06-01T23:59:00Z",
        "published": True, "items": [
            {"id": "why", "kind": "text", "points": 2, "rubric": rubric},
            {"id": "sdpa", "kind": "code", "points": 10,
             "problem": "scaled_dot_product_attention"}]})
    assert created.status_code == 201, created.get_json()
    draft = api.post("/api/v1/assignments", json={
        "id": "draft-1", "title": "Not yet open", "items": [
            {"id": "why", "kind": "text", "points": 2, "rubric": rubric}]})
    assert draft.status_code == 201 and draft.get_json()["published"] is False


def test_limits_show_beside_the_boxes_with_a_live_word_count(live_server, browser,
                                                            screenshots):
    from selenium.webdriver.common.by import By

    from grader.items.code import MAX_SOURCE_CHARS
    from grader.items.text import MAX_TEXT_CHARS

    _limits_assignment(live_server)
    browser.get(live_server.url + "/learn/limits-1")
    box = browser.find_element(By.ID, "response-why")
    assert box.get_attribute("maxlength") == str(MAX_TEXT_CHARS) == "20000"
    limit = browser.find_element(By.ID, "response-why-limit")
    assert limit.text.startswith("Only the first 12 words are read; at most 20,000 characters.")
    assert "response-why-limit" in box.get_attribute("aria-describedby")
    code_limit = browser.find_element(By.ID, "response-sdpa-limit").text
    assert code_limit.startswith("At most 100,000 characters of code.")
    assert browser.find_element(By.ID, "response-sdpa").get_attribute("maxlength") == \
        str(MAX_SOURCE_CHARS)
    notebook_limit = browser.find_element(By.ID, "notebook-sdpa-limit").text
    assert notebook_limit.startswith("At most 1,000,000 characters (and the whole form at most "
                                     "2 MiB).")
    # the live count: 14 words typed (13 spaces between them), 12 read
    words = "the scores keep their variance near one so the softmax is not too flat"
    assert len(words.split()) == 14
    box.send_keys(words)
    count = browser.find_element(By.CSS_SELECTOR, "[data-count-for=response-why]")
    assert count.text == (f"Now: 14 words, only the first 12 will be read, {len(words)} "
                          "characters.")
    assert "over" in count.get_attribute("class")
    # the editor's count follows the editor (its text is the box's)
    set_code(browser, "response-sdpa", "x = 1\n")
    code_count = browser.find_element(By.CSS_SELECTOR, "[data-count-for=response-sdpa]")
    wait_for(browser, lambda d: code_count.text == "Now: 6 characters.")
    screenshots(browser, "33-limits-live-count", browser.find_element(By.ID, "submission-form"))
    assert axe_violations(browser) == []
    # without JavaScript the limits are still written; no count
    with screen(browser, 1280, 800, javascript=False):
        browser.get(live_server.url + "/learn/limits-1")
        assert browser.find_element(By.ID, "response-why-limit").text == \
            "Only the first 12 words are read; at most 20,000 characters."
        assert not browser.find_element(By.CSS_SELECTOR,
                                        "[data-count-for=response-why]").is_displayed()
        screenshots(browser, "34-limits-no-js", browser.find_element(By.ID, "submission-form"))


def test_the_server_takes_what_maxlength_let_through(live_server):
    """A browser posts every line break of a box as CR LF while maxlength counted it as one
    character: 10,000 lines of "a" are 20,000 characters in the box (within the limit) and
    30,000 as posted; the server reads them as typed. One character more is refused with the
    form filled again."""
    _limits_assignment(live_server)
    http = requests.Session()
    page = http.get(live_server.url + "/learn/limits-1").text
    posted = http.post(live_server.url + "/learn/limits-1", data={
        **form_fields(page), "response-why": "a\r\n" * 10_000}, allow_redirects=False)
    assert posted.status_code == 303, posted.text[:400]
    page = http.get(live_server.url + "/learn/limits-1").text
    over = "b" + "a\r\n" * 10_000
    refused = http.post(live_server.url + "/learn/limits-1", data={
        **form_fields(page), "response-why": over}, allow_redirects=False)
    assert refused.status_code == 422
    assert "20001 characters long; the limit is 20000" in refused.text
    box = re.search(r'<textarea class="text-input" id="response-why"[^>]*>(.*?)</textarea>',
                    refused.text, re.S)
    assert html.unescape(box[1]) == over.replace("\r\n", "\n")  # the answer, kept


def test_due_dates_show_their_zone_and_the_index_lists_published_assignments(live_server,
                                                                            browser):
    from selenium.webdriver.common.by import By

    _limits_assignment(live_server)
    browser.get(live_server.url + "/learn")
    listed = [a.text for a in browser.find_elements(By.CSS_SELECTOR, ".assignment-list a")]
    assert "Limits first" in listed and "Not yet open" not in listed
    assert "Self-attention basics" in listed
    entry = browser.find_element(By.XPATH, "//a[text()='Limits first']/..").text
    assert entry.endswith("(2 items; due 2031-06-02 01:59 (UTC+02:00), Europe/Berlin time)")
    browser.get(live_server.url + "/learn/limits-1")
    assert "Due 2031-06-02 01:59 (UTC+02:00), Europe/Berlin time." in \
        browser.find_element(By.CSS_SELECTOR, "main > p.muted").text
    browser.get(live_server.url + "/learn/draft-1")
    assert browser.find_element(By.TAG_NAME, "h1").text == "This assignment is not open yet"


def test_two_launched_assignments_in_two_tabs_both_submit(live_server, browser, screenshots):
    """Launch A, then B (another tab, the same learner): A's page still submits. A learner's
    session never opens an assignment no launch of theirs opened."""
    from selenium.webdriver.common.by import By

    ada = LearnerSession(course_id="local", learner_id="lti-ada", assignment_id="attention-basics",
                         name="Ada")
    browser.get(live_server.sign_in_url(ada, PAGE))
    first = browser.current_window_handle
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-editor"))
    set_code(browser, "response-sdpa", DIVIDES_BY_D_K)
    browser.switch_to.new_window("tab")
    other_tab = browser.current_window_handle
    second = LearnerSession(course_id="local", learner_id="lti-ada",
                            assignment_id="attention-code", name="Ada")
    browser.get(live_server.sign_in_url(second, "/learn/attention-code"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "The attention family in NumPy"
    browser.switch_to.window(first)
    submit_and_wait(browser, None)  # was 403 "belongs to another assignment"
    heading = browser.find_element(By.CSS_SELECTOR, "#result-body .result-heading").text
    assert heading == "Score: 8 / 16"
    screenshots(browser, "35-two-tabs-first-submits")
    # an assignment neither launch opened stays closed: the page and its script are refused
    browser.get(live_server.url + "/learn/attention-inference")
    assert browser.find_element(By.TAG_NAME, "h1").text == "This page belongs to another assignment"
    refused = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/learn/attention-inference', {method: 'POST', headers: {Accept: "
        "'application/json'}, body: new FormData()}).then(r => r.text().then(t => done("
        "[r.status, r.headers.get('Content-Type'), t]))).catch(e => done(String(e)));")
    assert refused[0] == 403 and refused[1].startswith("application/json")
    body = json.loads(refused[2])
    assert (body["status"], body["code"]) == (403, "forbidden")
    assert "'attention-code', 'attention-basics'" in body["message"]
    browser.switch_to.window(other_tab)
    browser.close()
    browser.switch_to.window(first)


def test_a_refused_submission_keeps_the_typed_answers(live_server, browser, screenshots):
    """The page's session ends under it (another learner signs in in this browser): the page
    script gets a JSON refusal, says it, and the code and the text stay as typed."""
    from selenium.webdriver.common.by import By

    ada = LearnerSession(course_id="local", learner_id="lti-ada", assignment_id="attention-basics")
    browser.get(live_server.sign_in_url(ada, PAGE))
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-editor"))
    set_code(browser, "response-sdpa", DIVIDES_BY_D_K)
    browser.find_element(By.ID, "response-quadratic-cost").send_keys("n squared pairs")
    url = browser.current_url
    grace = LearnerSession(course_id="local", learner_id="lti-grace",
                           assignment_id="attention-code")
    elsewhere = requests.Session()  # Grace's sign-in, whose cookie then replaces Ada's here
    signed = elsewhere.get(live_server.sign_in_url(grace, "/learn/attention-code"))
    assert signed.status_code == 200
    browser.add_cookie({"name": "grader_session",
                        "value": elsewhere.cookies.get("grader_session")})
    browser.find_element(By.ID, "submit-button").click()
    alert = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#progress .alert"))
    assert "This browser opened 'attention-code' from your course" in alert[0].text
    assert browser.current_url == url
    code = browser.execute_script("return GraderEditor.viewFor('response-sdpa').state.doc"
                                  ".toString()")
    assert code == DIVIDES_BY_D_K
    assert browser.find_element(By.ID, "response-quadratic-cost").get_attribute("value") == \
        "n squared pairs"
    assert not browser.find_element(By.ID, "submit-button").get_attribute("disabled")
    screenshots(browser, "36-refused-answers-kept")


def test_the_editor_marks_the_line_of_a_syntax_error(live_server, browser, screenshots):
    from selenium.webdriver.common.by import By

    broken = DIVIDES_BY_D_K.replace("d_k = Q.shape[-1]", "d_k = Q.shape[-1")
    line = broken.splitlines().index("    d_k = Q.shape[-1") + 1
    browser.get(live_server.url + PAGE)
    set_code(browser, "response-sdpa", broken)
    submit_and_wait(browser, None)
    item = browser.find_elements(By.CSS_SELECTOR, "#result-body .item-result")[0]
    assert item.find_element(By.CSS_SELECTOR, ".error-excerpt").text == \
        f"Line {line} of your code: d_k = Q.shape[-1"
    browser.get(live_server.url + PAGE)  # the editor shows the attempt, its line marked
    marked = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR,
                                                         ".cm-editor .cm-error-line"))
    assert [m.text for m in marked] == ["    d_k = Q.shape[-1"]
    note = browser.find_element(By.ID, "response-sdpa-marked").text
    assert note == (f"The feedback on your last attempt names line {line} (d_k = Q.shape[-1), "
                    "marked in the editor.")
    screenshots(browser, "37-editor-marks-the-line", browser.find_element(By.CSS_SELECTOR,
                                                                        ".cm-editor"))
    with screen(browser, 1280, 800, javascript=False):  # without JavaScript: the note
        browser.get(live_server.url + PAGE)
        assert browser.find_element(By.ID, "response-sdpa").get_attribute(
            "data-error-lines") == str(line)
        assert browser.find_element(By.ID, "response-sdpa-marked").text == \
            f"The feedback on your last attempt names line {line} (d_k = Q.shape[-1)."


def test_dark_mode_keeps_contrast_and_the_favicon_is_ours(live_server, browser, screenshots):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + PAGE)
    result = post_divides_by_d_k(browser, live_server.url)
    with screen(browser, 1280, 800, dark=True):
        for name, path in (("learner-page", PAGE), ("result", result)):
            browser.get(live_server.url + path)
            background = browser.execute_script(
                "return getComputedStyle(document.body).backgroundColor")
            assert background == "rgb(18, 21, 25)"  # --bg of the dark scheme (site.css)
            assert axe_violations(browser) == [], name
            full_page(browser, f"38-dark-{name}", 1280, 800)
    icon = browser.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href")
    assert icon == live_server.url + "/assets/favicon.svg"
    for url in (icon, live_server.url + "/favicon.ico"):
        answer = requests.get(url)
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].startswith("image/svg+xml")
        assert answer.text.startswith("<svg ")


def test_a_form_over_the_body_limit_is_a_page_not_json(app):
    """Over MAX_BODY_BYTES (2 MiB) the page's post is never read: without JavaScript a page
    says why (Back keeps the answers), the page script gets JSON with the same words."""
    browser = app.test_client()
    browser.get(PAGE)
    big = {"response-quadratic-cost": "a" * (2 * 1024 * 1024 + 1)}
    page = browser.post(PAGE, data=big)
    assert (page.status_code, page.mimetype) == (413, "text/html")
    text = html.unescape(page.get_data(as_text=True))
    assert "The form was larger than 2 MiB, the most one post may carry" in text
    script = browser.post(PAGE, data=big, headers={"Accept": "application/json"})
    assert (script.status_code, script.get_json()["code"]) == (413, "payload_too_large")
    assert script.get_json()["message"].startswith("The form was larger than 2 MiB")


#: Strings on which JavaScript's own ``\s`` and ``.length`` disagree with the server: U+FEFF is a
#: space to JavaScript only, U+001C-U+001F and U+0085 to Python only; an emoji (U+1F600) and a
#: CJK extension B ideograph (U+20000) are two UTF-16 units but one character.
COUNTED = [
    ("a\ufeffb c", 2, 5),             # "a<FEFF>b" one word
    ("a\x1cb\x1dc\x1ed\x1fe", 5, 9),  # the four separators split five words
    ("one\x85two", 2, 7),
    ("\U0001F600 smile \U00020000", 3, 9),
    ("tab\tand\u3000ideographic\u00a0nbsp", 4, 24),  # 3 + 3 + 11 + 4 letters, 3 spaces
    ("", 0, 0),
]


def test_the_live_count_counts_as_the_server_does(live_server, browser):
    """The page script's word and character counts of :data:`COUNTED` equal the server's: the
    rubric's word count (``_first_words``, which ``max_words`` reads) and ``len`` (the character
    limits'); the counts beside the box show them."""
    from selenium.webdriver.common.by import By

    from grader.rubric.engine import _first_words

    for text, words, characters in COUNTED:  # the expected counts, by hand, are the server's
        assert (_first_words(text, 10 ** 6)[1], len(text)) == (words, characters), repr(text)
    _limits_assignment(live_server)
    browser.get(live_server.url + "/learn/limits-1")
    counted = browser.execute_script(
        "return arguments[0].map(function (t) {"
        " return [graderCounts.words(t), graderCounts.characters(t)]; });",
        [text for text, _, _ in COUNTED])
    assert counted == [[words, characters] for _, words, characters in COUNTED]
    # the count beside the box (send_keys cannot type an emoji: the box is set and told)
    browser.execute_script(
        "var box = document.getElementById('response-why'); box.value = arguments[0];"
        " box.dispatchEvent(new Event('input'));", "\U0001F600 smile\x85now")
    count = browser.find_element(By.CSS_SELECTOR, "[data-count-for=response-why]")
    assert count.text == "Now: 3 words, 11 characters."  # 1 + 1 + 5 + 1 + 3
