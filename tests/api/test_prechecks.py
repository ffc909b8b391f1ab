"""``POST /api/v1/assignments/<id>/prechecks``: the visible examples only, answered at once, on the
real sandbox; nothing stored, rate-limited per learner."""
from __future__ import annotations

import pytest

from grader.app import close_app
from tests.conftest import EXAMPLES, instructor_client

URL = "/api/v1/assignments/attention-basics/prechecks"
PRINTING = "print('shapes <b>&', 1 + 1)\n"


@pytest.fixture
def precheck_app(embedded_config):
    from grader.app import create_app

    app = create_app({**embedded_config, "PRECHECK_RATE_LIMIT": "3 per hour"})
    yield app
    found = app.extensions.get("grader_prechecks")
    if found is not None:
        found.close()
    close_app(app)


@pytest.fixture
def api(precheck_app):
    return instructor_client(precheck_app)


def _body(source: str, learner: str = "amy") -> dict:
    return {"learner_id": learner, "responses": {"sdpa": {"code": source},
                                                 "quadratic-cost": {"text": "n squared"}}}


def test_a_precheck_answers_the_visible_examples_at_once_and_stores_nothing(api, precheck_app):
    source = PRINTING + (EXAMPLES / "sdpa_divides_by_dk.py").read_text()
    answer = api.post(URL, json=_body(source))
    assert answer.status_code == 200, answer.get_json()
    data = answer.get_json()
    assert data["stored"] is False and data["learner_id"] == "amy"
    [item] = data["items"]  # the text item has no visible examples
    assert (item["item_id"], item["passed"], item["total"]) == ("sdpa", 2, 3)
    assert [t["status"] for t in item["tests"]] == ["failed", "passed", "passed"]
    assert all(t["name"].startswith("example: ") for t in item["tests"])
    assert "divided by d_k instead of sqrt(d_k)" in item["tests"][0]["output"]
    assert item["stdout"] == "shapes <b>& 2\n"  # as printed; the page escapes it
    # one picture per visible example (of a batch its first element), the learner's beside the
    # expected one
    assert [p["example"] for p in item["pictures"]] == [
        t["name"] + (" (batch element 0)" if "batch of 2" in t["name"] else "")
        for t in item["tests"]]
    assert all(p["learner"] and p["expected"] for p in item["pictures"])
    assert "no hidden test ran" in item["output"]
    store = precheck_app.extensions["grader"].store
    assert store.attempts_of("local", "attention-basics", "amy") == []


def test_a_correct_source_passes_every_visible_example(api):
    data = api.post(URL, json=_body((EXAMPLES / "sdpa_correct.py").read_text())).get_json()
    assert [(i["passed"], i["total"], i["stdout"]) for i in data["items"]] == [(3, 3, "")]


def test_the_learners_prechecks_are_limited_and_other_learners_are_not(api):
    source = (EXAMPLES / "sdpa_correct.py").read_text()
    assert [api.post(URL, json=_body(source)).status_code for _ in range(3)] == [200] * 3
    refused = api.post(URL, json=_body(source))
    assert refused.status_code == 429
    assert refused.get_json()["field"] == "learner_id"
    assert int(refused.headers["Retry-After"]) >= 1
    assert api.post(URL, json=_body(source, learner="bo")).status_code == 200


def test_a_malformed_precheck_names_the_field_and_runs_nothing(api, precheck_app):
    answer = api.post(URL, json={"learner_id": "amy", "responses": {"sdpa": {"source": "x"}}})
    assert answer.status_code == 422
    assert answer.get_json()["field"] == "responses.sdpa"
    assert api.post(URL, json={"learner_id": "amy", "responses": {"nope": {"code": "x"}}}
                    ).status_code == 404
    assert "grader_prechecks" not in precheck_app.extensions  # no sandbox was even made
