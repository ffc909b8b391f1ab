"""A Jupyter notebook uploaded on the learner page, without JavaScript (multipart form posts) and
in headless Chromium. Expected, by hand: the notebook holds the examples' SDPA that divides by d_k,
which loses exactly the 2 scaling points (tests/web/test_browser.py): 8 / 16 for the sdpa item
alone, and its feedback starts with what was read and dropped."""
from __future__ import annotations

import re

import nbformat
import pytest
import requests
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.web.test_browser import DIVIDES_BY_D_K, wait_for
from tests.web.test_no_javascript import PAGE, follow, form_fields, heading

pytestmark = pytest.mark.slow

NOTEBOOK = nbformat.writes(new_notebook(cells=[
    new_markdown_cell("# Attention"), new_code_cell("%matplotlib inline\nimport numpy as np"),
    new_code_cell(DIVIDES_BY_D_K), new_code_cell("!pip install numpy")]))


def _post(http, base, files, path=PAGE):
    page = http.get(base + PAGE)
    return http.post(base + path, data=form_fields(page.text), files=files,
                     allow_redirects=False)


def test_an_uploaded_notebook_is_graded_without_javascript(live_server):
    http = requests.Session()
    posted = _post(http, live_server.url, {"notebook-sdpa": ("attention.ipynb", NOTEBOOK,
                                                             "application/x-ipynb+json")})
    page = follow(http, live_server.url, posted).text
    assert heading(page) == "Score: 8 / 16"
    assert "Read from your notebook: 3 code cells, in order" in page
    assert "code cell 1, line 1: %matplotlib inline (an IPython magic)" in page
    assert "code cell 3, line 1: !pip install numpy (a shell escape)" in page


def test_a_file_that_is_not_a_notebook_is_refused_with_a_sentence(live_server):
    http = requests.Session()
    posted = _post(http, live_server.url, {"notebook-sdpa": ("attention.ipynb", "def f(:",
                                                             "application/octet-stream")})
    assert posted.status_code == 422
    assert re.search(r"responses\.sdpa: notebook: is not valid JSON \(line 1, column 1",
                     posted.text)
    assert "def scaled_dot_product_attention(Q, K, V, mask=None)" in posted.text  # form kept


def test_an_uploaded_notebook_is_prechecked(live_server):
    http = requests.Session()
    checked = _post(http, live_server.url, {"notebook-sdpa": ("a.ipynb", NOTEBOOK, "")},
                    path=PAGE + "/check")
    assert checked.status_code == 200
    assert "passed 2 of 3 visible examples" in checked.text


def test_upload_a_notebook_in_the_browser(live_server, browser, screenshots, tmp_path):
    from selenium.webdriver.common.by import By

    path = tmp_path / "attention.ipynb"
    path.write_text(NOTEBOOK, encoding="utf-8")
    browser.get(live_server.url + PAGE)
    upload = browser.find_element(By.ID, "notebook-sdpa")
    assert browser.find_element(By.CSS_SELECTOR, "label[for='notebook-sdpa']").text == \
        "Or upload a Jupyter notebook (.ipynb) for item 1"
    upload.send_keys(str(path))
    browser.find_element(By.ID, "submit-button").click()
    wait_for(browser, lambda d: (d.execute_script("return window.graderTiming") or {}).get(
        "shown"))
    timing = browser.execute_script("return window.graderTiming")
    print(f"notebook-to-graded: {(timing['shown'] - timing['submitted']) / 1000:.2f} s")
    result = browser.find_element(By.CSS_SELECTOR, "#result-body")
    assert browser.find_element(By.CSS_SELECTOR, "#result-body .result-heading").text == \
        "Score: 8 / 16"
    assert "Read from your notebook: 3 code cells, in order" in result.text
    screenshots(browser, "notebook-upload-graded")
