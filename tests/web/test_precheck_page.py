"""The learner page's "Check" button: the visible examples only, at once, in headless Chromium and
without JavaScript; the code's print() output shown escaped; nothing stored as an attempt.

Expected, by hand: dividing by d_k instead of sqrt(d_k) changes the result only where d_k != 1;
of the sdpa problem's three visible examples only the first ("cross-attention, ... d_k=5") has
d_k != 1, so the check passes 2 of 3 (a correct implementation 3 of 3)."""
from __future__ import annotations

import re

import pytest
import requests

from tests.web.conftest import axe_violations
from tests.web.test_browser import CORRECT, DIVIDES_BY_D_K, set_code, wait_for
from tests.web.test_no_javascript import PAGE, form_fields

pytestmark = pytest.mark.slow

PRINTS = DIVIDES_BY_D_K.replace("    d_k = Q.shape[-1]\n",
                                "    d_k = Q.shape[-1]\n    print('<script>d_k</script>', d_k)\n")


def test_check_without_javascript_shows_the_examples_and_keeps_the_answers(live_server):
    http = requests.Session()
    page = http.get(live_server.url + PAGE)
    data = {**form_fields(page.text), "response-sdpa": PRINTS, "response-no-positions": "B"}
    checked = http.post(live_server.url + PAGE + "/check", data=data, allow_redirects=False)
    assert checked.status_code == 200, checked.text[:500]
    text = checked.text
    assert "passed 2 of 3 visible examples" in text
    assert "divided by d_k instead of sqrt(d_k)" in text
    # printed once per visible example (d_k = 5, 1, 1), then once per picture call, escaped,
    # never as markup
    stdout = re.search(r'<pre class="stdout"[^>]*>(.*?)</pre>', text, re.S).group(1)
    assert stdout == "".join(f"&lt;script&gt;d_k&lt;/script&gt; {d}\n" for d in sent_d_ks())
    assert sent_d_ks()[:3] == [5, 1, 1]
    # the visible examples' pictures, as a graded result draws them
    assert text.count('<svg xmlns="http://www.w3.org/2000/svg" class="heatmap"') == 6
    assert "<script>d_k" not in text
    # the form comes back as typed; no attempt was stored
    assert "print(&#39;&lt;script&gt;d_k&lt;/script&gt;&#39;, d_k)" in text
    assert re.search(r'id="response-no-positions-B"[^>]*checked', text)
    assert submissions_stored(live_server) == 0


def sent_d_ks() -> list[int]:
    """d_k of each call sent before any hidden input: the visible examples, then the pictures."""
    from grader.problems import PROBLEMS, pictures

    problem = PROBLEMS["scaled_dot_product_attention"]
    d_ks = [args[0].shape[-1] for case in problem.visible_cases() for args, _ in case.calls]
    return d_ks + [call.args[0].shape[-1] for call in pictures.calls(problem)]


def submissions_stored(live_server) -> int:
    """How many submissions the live server's store holds (any learner)."""
    from sqlalchemy import text

    with live_server.app.extensions["grader"].store.engine.connect() as conn:
        return conn.execute(text("select count(*) from submissions")).scalar()


def test_check_with_javascript_inserts_the_results_without_a_reload(live_server, browser,
                                                                   screenshots):
    from selenium.webdriver.common.by import By

    browser.get(live_server.url + PAGE)
    set_code(browser, "response-sdpa", PRINTS)
    browser.execute_script("window.notReloaded = true")
    browser.find_element(By.ID, "check-button").click()
    wait_for(browser, lambda d: (d.execute_script("return window.graderTiming") or {}).get(
        "checkShown"))
    assert browser.execute_script("return window.notReloaded") is True
    summary = browser.find_element(By.CSS_SELECTOR, ".precheck-item h4").text
    assert summary == "Item sdpa: passed 2 of 3 visible examples"
    rows = browser.find_elements(By.CSS_SELECTOR, ".precheck-tests tbody tr")
    assert [r.get_attribute("class") for r in rows] == ["failed", "passed", "passed"]
    assert browser.find_element(By.CSS_SELECTOR, "pre.stdout").text == "\n".join(
        f"<script>d_k</script> {d}" for d in sent_d_ks())
    assert len(browser.find_elements(By.CSS_SELECTOR, "#precheck svg.heatmap")) == 6
    assert browser.find_elements(By.CSS_SELECTOR, "#precheck script") == []
    # not a submission: no result, no attempt
    assert browser.find_elements(By.CSS_SELECTOR, "#result-body .result-heading") == []
    assert submissions_stored(live_server) == 0
    screenshots(browser, "precheck-divides-by-dk")
    assert axe_violations(browser) == []
    set_code(browser, "response-sdpa", CORRECT)
    browser.find_element(By.ID, "check-button").click()
    wait_for(browser, lambda d: "passed 3 of 3" in d.find_element(
        By.CSS_SELECTOR, "#precheck-body").text)
    assert browser.find_element(By.CSS_SELECTOR, ".stdout-empty").text == "Nothing."


def test_the_result_page_shows_what_the_visible_examples_printed_escaped(live_server):
    """Graded, not a check: the prints of the visible examples and their pictures (one per call
    sent before any hidden input), escaped; none of the hidden tests' prints."""
    from tests.web.test_no_javascript import follow, submit

    d_ks = sent_d_ks()
    http = requests.Session()
    page = follow(http, live_server.url, submit(http, live_server.url, {"sdpa": PRINTS})).text
    assert "What your code printed on the visible examples" in page
    shown = re.search(r'<details class="your-output">.*?<pre class="stdout">(.*?)</pre>', page,
                      re.S).group(1)
    assert shown == "".join(f"&lt;script&gt;d_k&lt;/script&gt; {d}\n" for d in d_ks)
    assert "<script>d_k" not in page


def test_checks_are_limited_per_address_across_practice_learners(live_server_factory):
    """Each requests.Session is a new anonymous practice learner (a new cookie); the address's
    limit (2 per hour here) still holds: the third check is a 429 with the form kept."""
    server = live_server_factory({"WEB_SUBMIT_ADDRESS_RATE_LIMIT": "2 per hour"})
    answers = []
    for _ in range(3):
        http = requests.Session()
        page = http.get(server.url + PAGE)
        answers.append(http.post(server.url + PAGE + "/check", data={
            **form_fields(page.text), "response-sdpa": CORRECT}, allow_redirects=False))
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert "Your network address has checked code too often" in answers[2].text
    assert int(answers[2].headers["Retry-After"]) >= 1
    assert "passed 3 of 3 visible examples" in answers[1].text
