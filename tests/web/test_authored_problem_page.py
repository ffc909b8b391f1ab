"""An instructor's own code problem on the learner page (plain form posts against a live server):
the contract and visible examples are shown, correct, buggy and hostile code are graded in the
sandbox, the result page draws the example's pictures and names the author's mistake.

Scores by hand: a 10-point item; the correct reference earns 10; tau multiplied instead of
divided fails every value test and so (credit rule) the inputs test too: 0, with the mistake's
message; code that returns a list of file names returns no array: 0."""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import requests
import yaml

from grader.bootstrap import KEY_FILE
from grader.web.session import LearnerSession
from tests.web.test_no_javascript import form_fields, heading

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = (ROOT / "examples" / "problems" / "cosine_attention.yaml").read_text()
PAGE = "/learn/hw-cosine"


@pytest.fixture
def course_page(live_server):
    key = (Path(live_server.config["INSTANCE_PATH"]) / KEY_FILE).read_text().strip()
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {key}"
    up = api.post(live_server.url + "/api/v1/problems", data=DOCUMENT,
                  headers={"Content-Type": "application/yaml"}, timeout=120)
    assert up.status_code == 201, up.text
    made = api.post(live_server.url + "/api/v1/assignments", json={
        "id": "hw-cosine", "title": "Cosine attention", "published": True,
        "items": [{"id": "cos", "kind": "code", "points": 10, "problem": "cosine-attention"}]})
    assert made.status_code == 201, made.text
    http = requests.Session()
    http.get(live_server.sign_in_url(LearnerSession("local", "amy"), PAGE))
    return http


def submit(http, base: str, code: str) -> str:
    page = http.get(base + PAGE)
    assert page.status_code == 200
    posted = http.post(base + PAGE, data={**form_fields(page.text), "response-cos": code},
                       allow_redirects=False)
    assert posted.status_code == 303, posted.text[:500]
    return http.get(base + posted.headers["Location"], timeout=90).text


def test_learner_page_shows_the_contract_and_examples(live_server, course_page):
    page = course_page.get(live_server.url + PAGE).text
    assert "def cosine_attention(Q, K, V, tau)" in html.unescape(page)
    assert "example 1" in page and "np.linalg.norm(Q" not in html.unescape(page)


def test_correct_buggy_and_hostile_code_are_graded_with_pictures(live_server, course_page):
    reference = yaml.safe_load(DOCUMENT)["reference"]
    page = submit(course_page, live_server.url, reference)
    assert heading(page) == "Score: 10 / 10"
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="heatmap"') == 4
    page = submit(course_page, live_server.url, yaml.safe_load(DOCUMENT)["mistakes"][1]["source"])
    assert heading(page) == "Score: 0 / 10"
    assert "Divide the cosine similarities by tau" in page
    page = submit(course_page, live_server.url, "import os\n\n"
                  "def cosine_attention(Q, K, V, tau):\n    return os.listdir('/')\n")
    assert heading(page) == "Score: 0 / 10"
    assert not re.search(r"(bin|etc|usr)', '", page)  # no directory listing is shown
