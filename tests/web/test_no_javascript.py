"""The same flow without JavaScript: plain HTTP form posts (requests) against a live server.

Expected scores, by hand (see test_browser.py for the sdpa split): attention-basics is sdpa 10 +
quadratic-cost 5 + no-positions 1 = 16. The examples' correct SDPA earns 10, the seed's model
answer earns the text item's 5 (README, "Try it"), and B is the key of no-positions
(rubrics/assignments/attention-basics.yaml): 16 / 16. Dividing by d_k loses the 2 scaling points.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from grader.web.session import LearnerSession

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAGE = "/learn/attention-basics"
CORRECT = (ROOT / "examples" / "sdpa_correct.py").read_text(encoding="utf-8")
DIVIDES_BY_D_K = (ROOT / "examples" / "sdpa_divides_by_dk.py").read_text(encoding="utf-8")
MODEL_ANSWER = (ROOT / "examples" / "quadratic_cost_model_answer.txt").read_text(encoding="utf-8")


def form_fields(page: str) -> dict:
    """The hidden fields of the learner page's form."""
    return {name: html.unescape(value) for name, value in re.findall(
        r'<input type="hidden" name="(csrf_token|form_nonce)" value="([^"]*)"', page)}


def submit(http: requests.Session, base: str, responses: dict, fields: dict | None = None):
    """GET the page, POST the form with ``responses`` (item id -> value); the response of the
    POST, redirects not followed."""
    page = http.get(base + PAGE)
    assert page.status_code == 200
    data = {**form_fields(page.text), **(fields or {})}
    data.update({f"response-{item}": value for item, value in responses.items()})
    return http.post(base + PAGE, data=data, allow_redirects=False)


def follow(http: requests.Session, base: str, posted) -> requests.Response:
    assert posted.status_code == 303, posted.text[:500]
    location = posted.headers["Location"]
    assert re.fullmatch(r"/learn/attention-basics/submissions/[0-9a-f-]{36}\?wait=1", location)
    return http.get(base + location, timeout=60)


def heading(page: str) -> str:
    found = re.search(r'class="result-heading"[^>]*>\s*(.*?)\s*</h', page, re.S)
    return " ".join(found.group(1).split()) if found else ""


def test_correct_submission_renders_the_result_page(live_server):
    http = requests.Session()
    posted = submit(http, live_server.url, {"sdpa": CORRECT, "quadratic-cost": MODEL_ANSWER,
                                            "no-positions": "B"})
    result = follow(http, live_server.url, posted)
    assert result.status_code == 200
    page = result.text
    assert heading(page) == "Score: 16 / 16"
    assert "1. Code: 10 / 10 points" in page
    assert "2. Explanation: 5 / 5 points" in page
    assert "3. Choice: 1 / 1 points" in page
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="heatmap"') == 6
    # each highlighted piece of evidence is a piece of the learner's own answer
    marks = [html.unescape(m) for m in re.findall(r'<mark class="evidence">(.*?)</mark>', page,
                                                 re.S)]
    assert marks and all(m in MODEL_ANSWER for m in marks)
    assert page.count('<span class="verdict good">met</span>') >= 2
    assert "content_sha256" not in page and "extra_data" not in page
    # the page is ours alone: no script, style or image from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "Content-Security-Policy" in result.headers


def test_divided_by_d_k_loses_the_scaling_points_and_is_named(live_server):
    http = requests.Session()
    page = follow(http, live_server.url,
                  submit(http, live_server.url, {"sdpa": DIVIDES_BY_D_K})).text
    assert heading(page) == "Score: 8 / 16"
    assert "1. Code: 8 / 10 points" in page
    assert "The scores are divided by d_k instead of sqrt(d_k)" in page  # the diagnosis
    assert "Your weights differ from the expected weights" in page
    # the learner page lists the attempt and fills the form with the code just submitted
    learn = http.get(live_server.url + PAGE).text
    assert "8 / 16" in learn
    assert html.escape("/ d_k", quote=False) in learn


def test_missing_csrf_token_refuses_and_keeps_the_answers(live_server):
    http = requests.Session()
    http.get(live_server.url + PAGE)
    refused = http.post(live_server.url + PAGE,
                        data={"response-sdpa": "def f():\n    return 1 < 2\n"},
                        allow_redirects=False)
    assert refused.status_code == 400
    assert "The form had expired" in refused.text
    assert "return 1 &lt; 2" in refused.text  # the code is still in the form, escaped
    assert "No attempts yet." in refused.text


def test_a_token_from_another_session_is_refused(live_server):
    first, second = requests.Session(), requests.Session()
    token = form_fields(first.get(live_server.url + PAGE).text)
    second.get(live_server.url + PAGE)
    refused = second.post(live_server.url + PAGE, data={**token, "response-no-positions": "B"},
                          allow_redirects=False)
    assert refused.status_code == 400


def test_an_empty_form_asks_for_an_answer(live_server):
    http = requests.Session()
    refused = submit(http, live_server.url, {"sdpa": "   ", "quadratic-cost": ""})
    assert refused.status_code == 422
    assert "Answer at least one item before submitting." in refused.text


def test_a_text_answer_over_the_limit_is_refused_and_kept(live_server):
    http = requests.Session()
    refused = submit(http, live_server.url, {"quadratic-cost": "x" * 20_001})
    assert refused.status_code == 422
    assert "20001 characters long; the limit is 20000" in refused.text
    assert "x" * 20_001 in refused.text


def test_the_same_form_posted_twice_is_one_submission(live_server):
    http = requests.Session()
    page = http.get(live_server.url + PAGE).text
    data = {**form_fields(page), "response-no-positions": "B"}
    first = http.post(live_server.url + PAGE, data=data, allow_redirects=False)
    second = http.post(live_server.url + PAGE, data=data, allow_redirects=False)
    assert first.headers["Location"] == second.headers["Location"]
    # the same page posted with other answers (Back, edit, submit) is a new attempt
    third = http.post(live_server.url + PAGE, data={**data, "response-no-positions": "A"},
                      allow_redirects=False)
    assert third.status_code == 303 and third.headers["Location"] != first.headers["Location"]


def test_another_learner_cannot_open_my_result(live_server):
    mine, other = requests.Session(), requests.Session()
    posted = submit(mine, live_server.url, {"no-positions": "B"})
    url = live_server.url + posted.headers["Location"]
    assert mine.get(url).status_code == 200
    refused = other.get(url)
    assert refused.status_code == 404
    assert "No such submission" in refused.text


def test_a_launch_for_one_assignment_does_not_open_another(live_server):
    http = requests.Session()
    learner = LearnerSession(course_id="local", learner_id="lti-learner-1",
                             assignment_id="attention-basics", name="Ada")
    opened = http.get(live_server.sign_in_url(learner, PAGE))
    assert opened.status_code == 200 and "Signed in as <strong>Ada</strong>" in opened.text
    refused = http.get(live_server.url + "/learn/attention-code")
    assert refused.status_code == 403
    assert http.get(live_server.url + PAGE + "/instructor").status_code == 403


def test_without_practice_pages_a_visitor_is_sent_to_the_lms(live_server_factory):
    server = live_server_factory({"WEB_PRACTICE": "0"})
    refused = requests.get(server.url + PAGE)
    assert refused.status_code == 401
    assert "open this page from your course" in refused.text.lower()


def _api_key(server) -> str:
    return (Path(server.config["INSTANCE_PATH"]) / "local-instructor-key").read_text().strip()


def test_signed_result_link_renders_html_for_browsers_and_json_for_clients(live_server):
    http = requests.Session()
    posted = submit(http, live_server.url, {"sdpa": CORRECT, "no-positions": "B"})
    follow(http, live_server.url, posted)
    submission_id = posted.headers["Location"].split("/")[-1].split("?")[0]
    key = {"Authorization": f"Bearer {_api_key(live_server)}"}
    link = requests.post(f"{live_server.url}/api/v1/submissions/{submission_id}/link",
                         headers=key).json()["url"]
    page = requests.get(link, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert heading(page.text) == "Score: 11 / 16"  # sdpa 10 + choice 1, text left blank
    assert page.text.count('class="heatmap"') == 6
    for internal in ("content_sha256", "attempts", "extra_data", "sandbox_seconds"):
        assert internal not in page.text
    as_json = requests.get(link, headers={"Accept": "application/json"})
    assert as_json.headers["Content-Type"].startswith("application/json")
    # the JSON is the learner's view too (red-team finding 7): no digest, no timings
    assert "content_sha256" not in as_json.json() and as_json.json()["score"] == 11.0
    assert "sandbox_seconds" not in as_json.text and "finished_at" not in as_json.json()
    assert requests.get(link, headers={"Accept": "*/*"}).json()["id"] == submission_id


def test_instructor_view_lists_scores_exports_grades_and_regrades(live_server):
    learner = requests.Session()
    follow(learner, live_server.url, submit(learner, live_server.url, {"sdpa": DIVIDES_BY_D_K}))
    teacher = requests.Session()
    instructor = LearnerSession(course_id="local", learner_id="lti-teacher", role="instructor",
                                assignment_id="attention-basics", name="Grace")
    view = teacher.get(live_server.sign_in_url(instructor, PAGE + "/instructor"))
    assert view.status_code == 200
    assert "Instructor view: Self-attention basics" in view.text
    submissions = view.text.split('id="submissions-heading"', 1)[1]
    rows = re.findall(r"<tr>\s*<td>(practice-[0-9a-f]{16})</td>.*?<td>(.*?)</td>\s*<td>",
                      submissions, re.S)
    assert len(rows) == 1
    assert re.search(r"<td>8 / 16</td>", view.text)
    # grades.csv: the API's export, through the session
    csv = teacher.get(live_server.url + PAGE + "/instructor/grades.csv")
    assert csv.status_code == 200 and csv.headers["Content-Type"].startswith("text/csv")
    lines = csv.text.strip().splitlines()
    assert lines[0].startswith("learner_id,score,max_score,submitted_at,graded_at,status,"
                               "submission_id,attempt_policy,")
    assert lines[1].split(",")[1:3] == ["8", "16"] and lines[1].split(",")[5] == "graded"
    # a regrade preview: same tests, same code, so the same score and nothing changes
    page = teacher.get(live_server.url + PAGE + "/instructor").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    started = teacher.post(live_server.url + PAGE + "/instructor/regrades",
                           data={"csrf_token": token, "dry_run": "1"}, allow_redirects=False)
    assert started.status_code == 303
    report = teacher.get(live_server.url + started.headers["Location"], timeout=60).text
    assert "Status: <strong>done</strong>" in report
    cells = re.findall(r"<td>(.*?)</td>", report.split('<table class="regrade"', 1)[1])
    # old, new, difference, versions changed, overrides kept, would change
    assert cells[1:7] == ["8", "8", "0", "-", "-", "no"]
    # the instructor opens the submission (with its override forms) and the learner's view
    own_url = re.search(r'href="(/learn/attention-basics/instructor/submissions/[^"]+)"',
                        view.text).group(1)
    own = teacher.get(live_server.url + own_url)
    assert own.status_code == 200 and "Set a score by hand" in own.text
    result_url = re.search(r'href="(/learn/attention-basics/submissions/[^"]+)"',
                           own.text).group(1)
    assert teacher.get(live_server.url + result_url).status_code == 200
    # a regrade without the CSRF token is refused
    assert teacher.post(live_server.url + PAGE + "/instructor/regrades",
                        data={"dry_run": "0"}).status_code == 400


def test_swagger_ui_is_served_from_our_own_assets(live_server):
    docs = requests.get(live_server.url + "/api/v1/docs")
    assert docs.status_code == 200
    scripts = re.findall(r'<script src="([^"]+)"', docs.text)
    styles = re.findall(r'<link href="([^"]+)"', docs.text)
    assert scripts and styles
    manifest = json.loads((ROOT / "grader/web/static/vendor/VENDORED.json").read_text())
    for relative in scripts + styles:
        assert not relative.startswith(("http:", "https:", "//"))
        url = urljoin(live_server.url + "/api/v1/docs", relative)
        asset = requests.get(url)
        assert asset.status_code == 200, url
        name = url.split("/assets/vendor/", 1)[1]
        assert hashlib.sha256(asset.content).hexdigest() == manifest["files"][name]
