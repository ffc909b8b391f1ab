"""The learner page in headless Chromium against a live server (embedded default, real sandbox):
open the practice page, submit a correct SDPA and one that divides by d_k, see the feedback and the
heatmaps appear without a reload, check the scores; submit with the keyboard only; axe-core finds
no serious or critical violation. Screenshots go to tests/web/screenshots/.

Expected scores, by hand: attention-basics has sdpa (10 points), quadratic-cost (5) and
no-positions (1); items left blank score 0, so a submission of the sdpa item alone is out of 16.
A correct SDPA passes every test: 10. Dividing by d_k instead of sqrt(d_k) changes the result only
when d_k != 1; the sdpa problem keeps d_k = 1 outside its "scaling" category, so exactly the scaling
tests fail, and scaling's weight is 2.0 of the categories' total 10.0 (shapes 1, scaling 2,
softmax 1.5, values 1, masking 2, stability 1, properties 0.5, dtypes 0.5, inputs 0.5): 10 - 2 = 8.
"""
from __future__ import annotations

import pytest

from tests.web.conftest import axe_violations

pytestmark = pytest.mark.slow

PAGE = "/learn/attention-basics"

CORRECT = '''import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
'''

DIVIDES_BY_D_K = CORRECT.replace("/ np.sqrt(d_k)", "/ d_k")


def wait_for(driver, condition, timeout=60):
    """Wait for ``condition``; an element replaced while the condition reads it (the result is
    inserted in place) just means: look again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def set_code(driver, textarea_id: str, code: str) -> None:
    """Put ``code`` into the page's CodeMirror editor, as a paste would."""
    driver.execute_script(
        "const view = GraderEditor.viewFor(arguments[0]);"
        "view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: arguments[1]}});",
        textarea_id, code)


def submit_and_wait(driver, previous_heading: str | None) -> dict:
    """Press submit and wait until the page shows a new result; returns graderTiming."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "submit-button").click()

    def new_result(d):
        headings = d.find_elements(By.CSS_SELECTOR, "#result-body .result-heading")
        timing = d.execute_script("return window.graderTiming")
        return bool(headings and timing and timing.get("shown")) and \
            headings[0].get_attribute("id") != previous_heading

    wait_for(driver, new_result)
    return driver.execute_script("return window.graderTiming")


def heading_id(driver) -> str | None:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, "#result-body .result-heading")
    return found[0].get_attribute("id") if found else None


def sdpa_result(driver):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, "#result-body .item-result")[0]


def test_submit_correct_and_divided_by_d_k_see_feedback_and_heatmaps(live_server, browser,
                                                                       screenshots):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + PAGE)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Self-attention basics"
    # the code box became an editor with the starter code (JavaScript on)
    editor = browser.find_element(By.CSS_SELECTOR, ".cm-editor .cm-content")
    assert "def scaled_dot_product_attention(Q, K, V, mask=None):" in editor.text
    assert editor.get_attribute("aria-labelledby") == "response-sdpa-label"
    assert not browser.find_element(By.ID, "response-sdpa").is_displayed()
    screenshots(browser, "01-learner-page")
    assert axe_violations(browser) == []

    set_code(browser, "response-sdpa", CORRECT)
    url_before = browser.current_url
    timing = submit_and_wait(browser, None)
    assert browser.current_url == url_before  # no reload: the feedback came in place
    heading = browser.find_element(By.CSS_SELECTOR, "#result-body .result-heading")
    assert heading.text == "Score: 10 / 16"
    item = sdpa_result(browser)
    assert item.find_element(By.TAG_NAME, "h4").text == "1. Code: 10 / 10 points"
    heatmaps = item.find_elements(By.CSS_SELECTOR, "svg.heatmap")
    assert len(heatmaps) == 6  # 3 visible examples x (yours, expected)
    findings = [f.text for f in item.find_elements(By.TAG_NAME, "figcaption")]
    assert all("Your weights match the expected weights." in f
               for f in findings), findings
    correct_seconds = (timing["shown"] - timing["submitted"]) / 1000
    screenshots(browser, "02-feedback-correct")
    screenshots(browser, "02a-correct-item", item)
    assert axe_violations(browser) == []

    set_code(browser, "response-sdpa", DIVIDES_BY_D_K)
    timing = submit_and_wait(browser, heading.get_attribute("id"))
    heading = browser.find_element(By.CSS_SELECTOR, "#result-body .result-heading")
    assert heading.text == "Score: 8 / 16"
    item = sdpa_result(browser)
    assert item.find_element(By.TAG_NAME, "h4").text == "1. Code: 8 / 10 points"
    summary = item.find_element(By.CSS_SELECTOR, ".summary").text
    assert "sqrt(d_k)" in summary and "Diagnosis" in summary
    figures = item.find_elements(By.TAG_NAME, "figure")
    # only the first visible example has d_k = 4; the others have d_k = 1 (no visible change)
    assert "differ from the expected" in figures[0].text
    assert "match the expected" in figures[1].text and "match the expected" in figures[2].text
    assert len(item.find_elements(By.CSS_SELECTOR, "svg.heatmap")) == 6
    failed = item.find_elements(By.CSS_SELECTOR, "table.tests tbody tr.failed")
    assert failed and all("scaling" in row.text.lower() or "d_k" in row.text for row in failed)
    attempts = browser.find_elements(By.CSS_SELECTOR, "#attempts-body tbody tr")
    assert [row.find_elements(By.TAG_NAME, "td")[3].text for row in attempts] == \
        ["8 / 16", "10 / 16"]
    divided_seconds = (timing["shown"] - timing["submitted"]) / 1000
    screenshots(browser, "03-feedback-divides-by-d-k")
    screenshots(browser, "03a-divides-by-d-k-item", item)
    print(f"submit -> feedback shown: correct {correct_seconds:.2f} s, "
          f"divides by d_k {divided_seconds:.2f} s")
    assert axe_violations(browser) == []


def test_keyboard_only_submission(live_server, browser, screenshots):
    """Tab to the editor, type with Tab indenting, leave it with Esc then Tab, choose an option
    and submit with Enter: no mouse."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(live_server.url + PAGE)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".cm-content"))
    keys = ActionChains(browser)

    def active(script="return document.activeElement"):
        return browser.execute_script(script)

    def tab_until(predicate, limit=40, shift=False):
        for _ in range(limit):
            if predicate(active()):
                return
            if shift:
                ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(
                    Keys.SHIFT).perform()
            else:
                ActionChains(browser).send_keys(Keys.TAB).perform()
        raise AssertionError(f"focus never reached the element; it is on {active().tag_name}")

    tab_until(lambda el: "cm-content" in (el.get_attribute("class") or ""))
    # Tab indents inside the editor
    keys.key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).send_keys("pass")
    keys.send_keys(Keys.HOME).send_keys(Keys.TAB).perform()
    doc = browser.execute_script("return GraderEditor.viewFor('response-sdpa').state.doc"
                                 ".toString()")
    assert doc == "    pass"
    # type a correct implementation; the editor indents after "def ...:" by itself
    lines = ["import numpy as np", "", "def scaled_dot_product_attention(Q, K, V, mask=None):",
             "s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])",
             "s = np.where(mask, s, -np.inf) if mask is not None else s",
             "w = np.exp(s - s.max(axis=-1, keepdims=True))",
             "w = w / w.sum(axis=-1, keepdims=True)",
             "return w @ V"]
    typing = ActionChains(browser).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL)
    typing.send_keys(Keys.DELETE)
    for line in lines:
        typing.send_keys(line).send_keys(Keys.ENTER)
    typing.perform()
    doc = browser.execute_script("return GraderEditor.viewFor('response-sdpa').state.doc"
                                 ".toString()")
    assert "\n    return w @ V" in doc and "\n    s = Q @ np.swapaxes" in doc
    # Esc, then Tab leaves the editor for the next control (the item's notebook upload), and
    # Tab again reaches the explanation's text box
    ActionChains(browser).send_keys(Keys.ESCAPE).send_keys(Keys.TAB).perform()
    assert active().get_attribute("id") == "notebook-sdpa"
    ActionChains(browser).send_keys(Keys.TAB).perform()
    assert active().get_attribute("id") == "response-quadratic-cost"
    tab_until(lambda el: el.get_attribute("name") == "response-no-positions")
    ActionChains(browser).send_keys(Keys.SPACE).perform()  # checks the focused option
    tab_until(lambda el: el.get_attribute("id") == "submit-button")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_for(browser, lambda d: (d.execute_script("return window.graderTiming") or {}).get(
        "shown"))
    heading = browser.find_element(By.CSS_SELECTOR, "#result-body .result-heading")
    # focus moves to the new feedback, so a keyboard or screen-reader user lands on it
    assert active().get_attribute("id") == heading.get_attribute("id")
    # sdpa 10 of 10; the text item left blank 0; the first option checked with Space
    checked = browser.find_element(By.CSS_SELECTOR, "input[name='response-no-positions']:checked")
    items = browser.find_elements(By.CSS_SELECTOR, "#result-body .item-result h4")
    assert items[0].text == "1. Code: 10 / 10 points"
    assert items[1].text == "2. Explanation: 0 / 5 points"
    choice_points = 1 if checked.get_attribute("value") == live_server.app.extensions[
        "grader"].catalog.get("local", "attention-basics").items["no-positions"].spec[
        "answer"] else 0
    assert items[2].text == f"3. Choice: {choice_points} / 1 points"
    assert heading.text == f"Score: {10 + choice_points} / 16"
    screenshots(browser, "04-keyboard-only")


def test_text_answer_shows_criteria_with_evidence_highlighted(live_server, browser, screenshots):
    """The seed's model answer earns the text item's 5 points (README); each highlighted piece
    of evidence is a piece of the answer as typed."""
    from pathlib import Path

    from selenium.webdriver.common.by import By

    answer = (Path(__file__).resolve().parents[2] / "examples" /
              "quadratic_cost_model_answer.txt").read_text(encoding="utf-8").strip()
    browser.get(live_server.url + PAGE)
    browser.find_element(By.ID, "response-quadratic-cost").send_keys(answer)
    submit_and_wait(browser, None)
    item = browser.find_elements(By.CSS_SELECTOR, "#result-body .item-result")[1]
    assert item.find_element(By.TAG_NAME, "h4").text == "2. Explanation: 5 / 5 points"
    marks = [m.text for m in item.find_elements(By.CSS_SELECTOR, "blockquote.answer mark")]
    assert marks and all(m in answer for m in marks)
    verdicts = [v.text for v in item.find_elements(By.CSS_SELECTOR, "ul.criteria .verdict")]
    assert verdicts and set(verdicts) == {"met"}
    screenshots(browser, "05-text-evidence", item)
    assert axe_violations(browser) == []


def test_instructor_view_and_swagger_ui_render_offline(live_server, browser, screenshots):
    from selenium.webdriver.common.by import By

    from grader.web.session import LearnerSession

    browser.get(live_server.url + PAGE)
    set_code(browser, "response-sdpa", DIVIDES_BY_D_K)
    submit_and_wait(browser, None)
    teacher = LearnerSession(course_id="local", learner_id="teacher-1", role="instructor",
                             assignment_id="attention-basics", name="Grace Hopper")
    browser.get(live_server.sign_in_url(teacher, PAGE + "/instructor"))
    assert browser.find_element(By.TAG_NAME, "h1").text == \
        "Instructor view: Self-attention basics"
    cells = [td.text for td in browser.find_elements(
        By.CSS_SELECTOR, "section[aria-labelledby=submissions-heading] table.submissions td")]
    assert cells[2:4] == ["graded", "8 / 16"]
    screenshots(browser, "06-instructor-view")
    assert axe_violations(browser) == []
    # Swagger UI from our own copy: the document's title appears, with no internet
    browser.get(live_server.url + "/api/v1/docs")
    title = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR,
                                                        ".swagger-ui .info .title"))
    assert title[0].text.startswith("Attention grader")
    screenshots(browser, "07-swagger-ui")
