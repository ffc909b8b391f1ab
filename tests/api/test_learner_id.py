"""learner_id: each refusal says what is wrong (blank, a leading space, a leading control
character, a NUL), on the single and the batch endpoint; every id accepted before is still
accepted."""
from __future__ import annotations

import pytest

SUBMIT = "/api/v1/assignments/attention-basics/submissions"
CHOICE = {"no-positions": {"choice": "B"}}


@pytest.mark.parametrize("learner_id, message", [
    (" amy", "learner_id: must not start with whitespace (U+0020 SPACE)"),
    ("\u00a0amy", "learner_id: must not start with whitespace (U+00A0 NO-BREAK SPACE)"),
    ("\t=1", "learner_id: must not start with a control character (U+0009)"),
    ("\namy", "learner_id: must not start with a control character (U+000A)"),
    ("   ", "learner_id: must not be blank"),
    ("\t\n", "learner_id: must not be blank"),
    ("a\x00b", "learner_id: must not contain U+0000 (NUL, at position 1), which cannot be "
               "stored"),
    ("", "learner_id: Length must be between 1 and 200.; must not be blank"),  # as before
])
def test_a_refused_learner_id_says_what_is_wrong(client, learner_id, message):
    resp = client.post(SUBMIT, json={"learner_id": learner_id, "responses": CHOICE})
    assert resp.status_code == 422
    assert resp.get_json() == {"status": 422, "code": "validation_error", "message": message,
                               "field": "learner_id",
                               "errors": {"learner_id": message.split(": ", 1)[1].split("; ")}}


def test_the_batch_endpoint_names_the_entry_and_the_reason(client):
    body = {"submissions": [{"learner_id": "amy", "responses": CHOICE},
                            {"learner_id": " amy", "responses": CHOICE},
                            {"learner_id": "\t=1", "responses": CHOICE}]}
    resp = client.post(SUBMIT + "/batch", json=body)
    assert resp.status_code == 202
    entries = resp.get_json()["submissions"]
    assert entries[0]["index"] == 0 and "id" in entries[0]
    assert entries[1] == {"index": 1, "error": {
        "status": 422, "code": "validation_error", "field": "submissions[1].learner_id",
        "message": "submissions[1].learner_id: must not start with whitespace (U+0020 SPACE)"}}
    assert entries[2] == {"index": 2, "error": {
        "status": 422, "code": "validation_error", "field": "submissions[2].learner_id",
        "message": "submissions[2].learner_id: must not start with a control character "
                   "(U+0009)"}}


@pytest.mark.parametrize("learner_id", [
    "amy", "amy ", "a\tb", "=1", "ü-42", "a b", "x" * 200, "amy\n", "\x01amy"])
def test_ids_accepted_before_are_still_accepted(client, learner_id):
    # Before, the only rule besides the length was "the first character is not whitespace"
    # (Regexp(r"\S") matched at the start): trailing whitespace and control characters that are
    # not whitespace stay valid.
    resp = client.post(SUBMIT, json={"learner_id": learner_id, "responses": CHOICE})
    assert resp.status_code == 202, resp.get_json()
