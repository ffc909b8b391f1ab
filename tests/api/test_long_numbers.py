"""Red-team finding 6: a JSON or YAML number Python will not convert (more than 4,300 digits,
``sys.get_int_max_str_digits()``) was a 500. Every endpoint that reads a body answers 400
``invalid_json`` naming the reason and where the number is (422 ``invalid_rubric`` for rubric
documents, which report every parse error that way), and an endpoint that does not read its body
is not disturbed by one."""
from __future__ import annotations

import pytest

from grader.jsontext import MAX_INT_DIGITS

LONG = "1" * (MAX_INT_DIGITS + 1)  # 4301 digits: one more than Python converts
METHODS = ("post", "put", "patch")
RUBRIC_PATHS = {"/api/v1/rubrics", "/api/v1/rubrics/{rubric_id}"}


def _operations(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, "requestBody" in item[method]


RUBRIC_YAML = """id: long-numbers
question: Why is attention quadratic?
max_points: {points}
criteria:
  - id: pairs
    description: every pair of positions is scored
    points: 1
    concepts: [every pair]
"""


@pytest.fixture
def ids(client):
    resp = client.post("/api/v1/assignments/attention-basics/submissions",
                       json={"learner_id": "l", "responses": {"no-positions": {"choice": "B"}}})
    assert resp.status_code == 202, resp.get_json()
    # a course's own copy: PUT and PATCH of a built-in assignment are 405 before any body is read
    copied = client.post("/api/v1/assignments/attention-basics/copy", json={"id": "hw-long"})
    assert copied.status_code == 201, copied.get_json()
    rubric = client.post("/api/v1/rubrics", data=RUBRIC_YAML.format(points=1),
                         content_type="application/yaml")
    assert rubric.status_code == 201, rubric.get_json()
    return {"assignment_id": "hw-long", "submission_id": resp.get_json()["id"],
            "course_id": "local", "rubric_id": "long-numbers", "delivery_id": "1",
            "platform_id": "none", "problem_id": "none", "trial_id": "none"}


def test_every_json_body_with_a_4301_digit_integer_is_a_400_naming_it(client, ids):
    # '{"n": ' is 6 characters, so the number starts at char 6: line 1, column 7
    body = '{"n": ' + LONG + "}"
    seen = 0
    for path, method, has_body in _operations(client):
        url = path.format(**ids)
        resp = getattr(client, method)(url, data=body, content_type="application/json")
        answer = resp.get_json()
        assert resp.status_code < 500, (method, path, answer)
        if not has_body:
            continue
        seen += 1
        if path in RUBRIC_PATHS:
            assert (resp.status_code, answer["code"]) == (422, "invalid_rubric"), (path, answer)
        else:
            assert (resp.status_code, answer["code"]) == (400, "invalid_json"), (path, answer)
        assert "a number has 4301 digits; numbers of at most 4300 digits are accepted" \
            in answer["message"], (path, answer)
        assert "line 1 column 7 (char 6)" in answer["message"], (path, answer)
    # submissions, batch, assignments (create, put, patch, copy), rubrics (create, put, trial),
    # regrades, courses, keys, LTI platforms: 13 operations with a body today (the link and the
    # delivery replay take none); a new one is checked too
    assert seen >= 13


@pytest.mark.parametrize("literal", [LONG, "-" + LONG, "[" + LONG + "]"])
def test_the_number_is_refused_wherever_it_sits_in_a_submission(client, literal):
    # a negative number and one inside a list are the same literal to the parser
    body = ('{"learner_id": "l", "responses": {"no-positions": {"choice": "B", "x": '
            + literal + "}}}")
    resp = client.post("/api/v1/assignments/attention-basics/submissions", data=body,
                       content_type="application/json")
    assert (resp.status_code, resp.get_json()["code"]) == (400, "invalid_json")
    digits = 4301
    assert f"a number has {digits} digits" in resp.get_json()["message"]


def test_4300_digits_still_parse_and_meet_the_fields_own_checks(client):
    # the largest literal Python converts is read, and then refused by the field it is in:
    # learner_id must be a string, so 422 naming learner_id (nothing else changed)
    body = '{"learner_id": ' + "9" * MAX_INT_DIGITS + ', "responses": {"no-positions": ' \
        '{"choice": "B"}}}'
    resp = client.post("/api/v1/assignments/attention-basics/submissions", data=body,
                       content_type="application/json")
    assert (resp.status_code, resp.get_json()["field"]) == (422, "learner_id")


@pytest.mark.parametrize("points,column", [
    (LONG, 13),  # "max_points: " is 12 characters: the number starts in column 13
    ("-" + LONG, 13),  # the sign belongs to the literal
    ("0x" + "f" * 3600, 13),  # 16**3600 ~ 10**4334.7: 4335 digits once converted
])
def test_a_yaml_rubric_with_a_huge_integer_is_422_naming_line_and_column(client, points, column):
    resp = client.post("/api/v1/rubrics", data=RUBRIC_YAML.format(points=points),
                       content_type="application/yaml")
    answer = resp.get_json()
    assert (resp.status_code, answer["code"]) == (422, "invalid_rubric"), answer
    assert "numbers of at most 4300 digits are accepted" in answer["message"]
    # line 3 of the document (PyYAML counts from 1 in its messages)
    assert f"line 3, column {column}" in answer["errors"][0]["message"]


def test_a_yaml_huge_integer_where_text_belongs_is_422_not_a_500(client):
    # before: the hint "YAML reads 0xfff... as a number" printed the integer, which Python refuses
    doc = RUBRIC_YAML.format(points=1).replace("question: Why is attention quadratic?",
                                               "question: 0x" + "f" * 3600)
    resp = client.post("/api/v1/rubrics", data=doc, content_type="application/yaml")
    assert (resp.status_code, resp.get_json()["code"]) == (422, "invalid_rubric")
    assert "line 2, column 11" in resp.get_json()["errors"][0]["message"]  # "question: " = 10
