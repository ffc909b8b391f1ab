"""Issue 20.5, the service's side: a visible example that failed with a message built from bytes
decoded with ``surrogateescape`` made the learner's result page and assignment page answer 500
(``UnicodeEncodeError``), kept them broken after a relaunch, and the signed link answered 400
"body not valid Unicode" to a GET. Now what crosses the sandbox boundary into the store is valid
UTF-8 (surrogates shown as U+FFFD, control characters as ``\\x00``-style escapes), the results
columns are cleaned when written and read, and every page writes its values cleaned, so a row
stored before (a lone surrogate in its results) renders too. Grading runs in the real sandbox."""
from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import text

LEARN = "/learn/attention-basics"
RAISES = r'''
import numpy as np

def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError(b"bad \xff byte".decode("utf-8", "surrogateescape") + "\x00nul\x1b[31m")
'''
SHOWN = "ValueError: bad \ufffd byte\\x00nul\\x1b[31m"


def practice_post(app, code: str):
    """A practice learner submits ``code`` for the code item; returns (client, result path)."""
    browser = app.test_client()
    page = browser.get(LEARN).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    posted = browser.post(LEARN, data={"csrf_token": token, "response-sdpa": code})
    assert posted.status_code == 303, posted.status_code
    return browser, posted.headers["Location"]


def signed_link(client, submission_id: str) -> str:
    answer = client.post(f"/api/v1/submissions/{submission_id}/link")
    assert answer.status_code == 201
    return "/api/v1/results/" + answer.get_json()["token"]


def assert_pages_render(app, client, browser, result_path: str, submission_id: str,
                        shown: str) -> None:
    """The learner's result page, assignment page, status JSON, the signed link (HTML and JSON)
    and the REST view all answer 200 with ``shown`` (HTML-escaped in the pages)."""
    from markupsafe import escape

    result = browser.get(result_path)
    assert result.status_code == 200
    assert str(escape(shown)) in result.get_data(as_text=True)
    again = browser.get(LEARN)  # the assignment page, with the latest result
    assert again.status_code == 200 and str(escape(shown)) in again.get_data(as_text=True)
    status = browser.get(result_path.split("?")[0] + "/status")
    assert status.status_code == 200 and str(escape(shown)) in status.get_json()["result_html"]
    link = signed_link(client, submission_id)
    html = client.get(link, headers={"Accept": "text/html"})
    assert html.status_code == 200 and str(escape(shown)) in html.get_data(as_text=True)
    as_json = client.get(link, headers={"Accept": "application/json"})
    assert as_json.status_code == 200
    outputs = [t["output"] for i in as_json.get_json()["items"] for t in i["tests"]]
    assert any(shown in output for output in outputs)
    rest = client.get(f"/api/v1/submissions/{submission_id}")
    assert rest.status_code == 200
    body = rest.get_data()
    body.decode("utf-8")  # valid UTF-8, and no surrogate written as a JSON escape either
    assert b"\\ud" not in body.lower()


def test_a_visible_example_failing_with_surrogate_escaped_bytes_keeps_every_page_working(
        app, client):
    browser, result_path = practice_post(app, RAISES)
    page = browser.get(result_path)  # ?wait=1: answers once graded
    submission_id = result_path.split("/")[-1].split("?")[0]
    stored = app.extensions["grader"].store.get(submission_id)
    assert stored.status == "graded", stored.failure_reason
    sdpa = next(item for item in stored.results if item["item_id"] == "sdpa")
    visible = [t for t in sdpa["tests"] if t["name"].startswith("example")]
    assert visible and all(SHOWN in t["output"] for t in visible)
    assert page.status_code == 200
    assert_pages_render(app, client, browser, result_path, submission_id, SHOWN)


@pytest.mark.parametrize("stored_text, shown", [
    ("\udcff", "\ufffd"),                       # a lone low surrogate
    ("\ud83d", "\ufffd"),                       # half of a pair (the emoji's high half)
    ("\x00 and \x1b[2J", "\\x00 and \\x1b[2J"),  # NUL and an escape sequence
], ids=["lone-surrogate", "half-pair", "nul-and-escape"])
def test_a_row_stored_before_the_check_still_renders(app, client, stored_text, shown):
    browser, result_path = practice_post(app, RAISES)
    browser.get(result_path)
    submission_id = result_path.split("/")[-1].split("?")[0]
    store = app.extensions["grader"].store
    results = store.get(submission_id).results
    for item in results:
        for test in item["tests"]:
            if test["name"].startswith("example"):
                test["output"] = f"Failed: ValueError: old {stored_text} row"
    # written as an earlier version wrote it: JSON text with \\udcff-style escapes, unchecked
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE submissions SET results = :results WHERE id = :id"),
                     {"results": json.dumps(results), "id": submission_id})
        raw = conn.execute(text("SELECT results FROM submissions WHERE id = :id"),
                           {"id": submission_id}).scalar_one()
    assert json.dumps(stored_text)[1:-1] in raw  # the old row holds it
    assert_pages_render(app, client, browser, result_path, submission_id,
                        f"ValueError: old {shown} row")


def test_a_get_that_meets_text_it_cannot_encode_is_the_servers_fault_not_the_bodys(app, client):
    def boom():
        "\udcff".encode("utf-8")

    app.add_url_rule("/api/v1/_test/boom", "test_boom", boom, methods=["GET", "POST"])
    answer = client.get("/api/v1/_test/boom")
    assert (answer.status_code, answer.get_json()["code"]) == (500, "internal_error")
    posted = client.post("/api/v1/_test/boom", data='{"a": "\\udcff"}',
                         content_type="application/json")
    assert (posted.status_code, posted.get_json()["code"]) == (400, "invalid_json")


def test_every_value_a_template_writes_can_be_encoded(app):
    from markupsafe import Markup

    with app.test_request_context():
        page = app.jinja_env.from_string("{{ plain }}|{{ html }}|{{ plain|upper }}").render(
            plain="a\udcffb", html=Markup("<b>\ud800</b>"))
    assert page == "a\ufffdb|<b>\ufffd</b>|A\ufffdB"
    page.encode("utf-8")


def test_a_learners_own_form_feed_is_kept_in_the_editor(app):
    # Python accepts form feeds in source; the page shows the learner's code as they wrote it
    code = "import numpy as np\n\x0c\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n" \
           "    return V\n"
    browser, result_path = practice_post(app, code)
    browser.get(result_path)
    page = browser.get(LEARN).get_data(as_text=True)
    assert "import numpy as np\n\x0c\ndef scaled_dot_product_attention" in page
