"""Every bad request gets a JSON error with status, machine-readable code, message and field."""
import json

import pytest


def post(client, path, body=None, **kwargs):
    return client.post(path, data=json.dumps(body), content_type="application/json", **kwargs)


SUBMIT = "/api/v1/assignments/attention-basics/submissions"


def test_unknown_assignment_is_404_naming_the_field(client):
    resp = post(client, "/api/v1/assignments/nope/submissions",
                {"learner_id": "l", "responses": {"no-positions": {"choice": "B"}}})
    assert resp.status_code == 404
    assert resp.get_json() == {
        "status": 404, "code": "assignment_not_found",
        "message": "No assignment with id 'nope'.", "field": "assignment_id"}


def test_unknown_item_is_404_naming_the_item(client):
    resp = post(client, SUBMIT, {"learner_id": "l", "responses": {"bogus": {"text": "x"}}})
    body = resp.get_json()
    assert resp.status_code == 404
    assert (body["code"], body["field"]) == ("item_not_found", "responses.bogus")
    assert "sdpa" in body["message"]


def test_missing_learner_id_is_422_naming_the_field(client):
    resp = post(client, SUBMIT, {"responses": {}})
    body = resp.get_json()
    assert resp.status_code == 422
    assert (body["code"], body["field"]) == ("validation_error", "learner_id")
    assert "Missing data" in body["message"]


def test_response_of_the_wrong_shape_is_422(client):
    resp = post(client, SUBMIT, {"learner_id": "l", "responses": {"sdpa": {"text": "no code"}}})
    body = resp.get_json()
    assert resp.status_code == 422
    assert body["field"] == "responses.sdpa"


def test_responses_must_be_objects(client):
    resp = post(client, SUBMIT, {"learner_id": "l", "responses": {"sdpa": "def f(): pass"}})
    body = resp.get_json()
    assert resp.status_code == 422
    assert body["field"].startswith("responses")


def test_wrong_content_type_is_415(client):
    resp = client.post(SUBMIT, data="learner_id=l", content_type="application/x-www-form-urlencoded")
    body = resp.get_json()
    assert resp.status_code == 415
    assert (body["code"], body["field"]) == ("unsupported_media_type", "Content-Type")


def test_invalid_json_is_400(client):
    resp = client.post(SUBMIT, data=b"{not json", content_type="application/json")
    assert resp.status_code == 400
    assert resp.get_json()["code"] == "invalid_json"


def test_non_utf8_body_is_400(client):
    resp = client.post(SUBMIT, data=b'{"learner_id": "\xff\xfe"}', content_type="application/json")
    assert resp.status_code == 400
    assert resp.get_json()["code"] == "invalid_json"


def test_body_over_the_limit_is_413(embedded_config, tmp_path):
    from grader.app import create_app

    app = create_app({**embedded_config, "MAX_BODY_BYTES": 1000})
    key = (tmp_path / "instance" / "local-instructor-key").read_text().strip()
    try:
        resp = post(app.test_client(), SUBMIT, headers={"Authorization": f"Bearer {key}"}, body=
                    {"learner_id": "l", "responses": {"quadratic-cost": {"text": "x" * 5000}}})
        assert resp.status_code == 413
        assert resp.get_json()["code"] == "payload_too_large"
    finally:
        app.extensions["grader"].dispatcher.close()


def test_unknown_submission_is_404(client):
    resp = client.get("/api/v1/submissions/does-not-exist")
    assert resp.status_code == 404
    assert resp.get_json()["code"] == "submission_not_found"


@pytest.mark.parametrize("learner_id", ["", "x" * 201])
def test_learner_id_length_is_checked(client, learner_id):
    resp = post(client, SUBMIT, {"learner_id": learner_id, "responses": {"no-positions": {"choice": "B"}}})
    assert resp.status_code == 422
    assert resp.get_json()["field"] == "learner_id"
