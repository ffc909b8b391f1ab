"""Learners see prompts, points and contracts; never keys, rubrics or hidden tests."""
import json


def test_lists_the_built_in_assignment(client):
    resp = client.get("/api/v1/assignments")
    assert resp.status_code == 200
    ids = {a["id"]: a for a in resp.get_json()}
    assert ids["attention-basics"]["item_count"] == 3
    assert ids["attention-basics"]["max_score"] == 16.0


def test_assignment_shows_items_with_kind_prompt_points_and_contract(client):
    body = client.get("/api/v1/assignments/attention-basics").get_json()
    items = {item["id"]: item for item in body["items"]}
    assert {i: items[i]["kind"] for i in items} == {
        "sdpa": "code", "quadratic-cost": "text", "no-positions": "choice"}
    assert items["sdpa"]["points"] == 10
    assert items["sdpa"]["function"] == "scaled_dot_product_attention"
    assert "sqrt" in items["sdpa"]["contract"] or "√" in items["sdpa"]["contract"]
    assert set(items["no-positions"]["options"]) == {"A", "B", "C", "D"}


def test_assignment_never_reveals_keys_or_rubrics(client):
    body = client.get("/api/v1/assignments/attention-basics").get_json()
    items = {item["id"]: item for item in body["items"]}
    assert "answer" not in items["no-positions"]
    assert "explanation" not in items["no-positions"]
    assert "rubric" not in items["quadratic-cost"]
    text = json.dumps(body)
    assert "permutation-invariant" not in text  # the key's explanation
    assert "criteria" not in text and "misconceptions" not in text


def test_openapi_document_describes_the_interface(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    assert "/api/v1/assignments/{assignment_id}/submissions" in spec["paths"]
    assert "/api/v1/submissions/{submission_id}" in spec["paths"]
    post = spec["paths"]["/api/v1/assignments/{assignment_id}/submissions"]["post"]
    assert {"202", "404", "413", "415", "422"} <= set(post["responses"])
