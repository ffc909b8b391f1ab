"""The embedded default end to end: POST -> SQLite -> in-process grading -> sandbox -> result."""
from tests.conftest import example, wait_final

SUBMIT = "/api/v1/assignments/attention-basics/submissions"


def submit_and_wait(client, body):
    resp = client.post(SUBMIT, json=body)
    assert resp.status_code == 202, resp.get_json()
    created = resp.get_json()
    assert resp.headers["Location"] == f"/api/v1/submissions/{created['id']}"
    assert created["status"] == "queued"
    return wait_final(lambda: client.get(resp.headers["Location"]).get_json())


def items_of(result):
    return {item["item_id"]: item for item in result["items"]}


def test_correct_submission_earns_full_marks(client):
    result = submit_and_wait(client, example("submission_correct.json"))
    assert result["status"] == "graded", result.get("failure_reason")
    assert (result["score"], result["max_score"]) == (16.0, 16.0)
    items = items_of(result)
    assert items["sdpa"]["score"] == 10.0
    assert items["quadratic-cost"]["score"] == 5.0
    assert items["no-positions"]["score"] == 1.0
    assert result["started_at"] and result["finished_at"] and result["received_at"]
    for test in items["sdpa"]["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility", "tags"} <= set(test)


def test_dividing_by_d_k_loses_the_scaling_points_and_is_named(client):
    result = submit_and_wait(client, example("submission_divides_by_dk.json"))
    items = items_of(result)
    sdpa = items["sdpa"]
    assert result["status"] == "graded"
    assert sdpa["score"] == 8.0  # only the 2 scaling points are lost
    failed = [t for t in sdpa["tests"] if t["status"] == "failed"]
    assert failed and all("scaling" in t["tags"] or any(tag.startswith("diagnosis:") for tag in t["tags"])
                          for t in failed)
    feedback = " ".join(t["output"] for t in failed) + sdpa["output"]
    assert "sqrt(d_k)" in feedback and "d_k" in feedback
    # items left out score 0 with a note
    assert items["quadratic-cost"]["score"] == 0.0
    assert "No response" in items["quadratic-cost"]["output"]


def test_the_seed_model_answer_earns_full_marks_on_the_text_item(client):
    result = submit_and_wait(client, example("submission_text.json"))
    assert items_of(result)["quadratic-cost"]["score"] == 5.0


def test_the_content_digest_is_recorded(client):
    body = example("submission_text.json")
    created = client.post(SUBMIT, json=body).get_json()
    from grader.store.db import content_digest

    assert created["content_sha256"] == content_digest("attention-basics", body["learner_id"],
                                                       body["responses"])
