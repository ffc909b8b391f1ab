"""Contract options through the API as a new instructor meets them: the item shows the options
it was saved with, and an option no hidden test could check is a 422 naming the field."""
from __future__ import annotations


def _assignment(items, assignment_id="hw-course"):
    return {"id": assignment_id, "title": "Course conventions", "items": items}


def test_an_item_shows_the_contract_options_it_uses(client):
    contract = {"function": "sdp_attention", "parameters": ["q", "k", "v", "mask"],
                "mask": "numeric-blocked", "returns": "output+weights", "ranks": [4, 3, 3],
                "mask_required": False}  # a default: not one of the options that differ
    response = client.post("/api/v1/assignments", json=_assignment([
        {"id": "sdpa", "kind": "code", "points": 10, "problem": "scaled_dot_product_attention",
         "contract": contract},
        {"id": "plain", "kind": "code", "points": 10, "problem": "softmax"}]))
    assert response.status_code == 201, response.get_json()
    items = {i["id"]: i for i in client.get("/api/v1/assignments/hw-course").get_json()["items"]}
    assert items["sdpa"]["contract_options"] == {
        "function": "sdp_attention", "parameters": ["q", "k", "v", "mask"],
        "mask": "numeric-blocked", "returns": "output+weights", "ranks": [3, 4]}
    assert "contract_options" not in items["plain"]


def test_a_default_axis_no_hidden_test_calls_is_422_naming_the_field(client):
    response = client.post("/api/v1/assignments", json=_assignment([
        {"id": "sm", "kind": "code", "points": 5, "problem": "softmax",
         "contract": {"default_axis": 3}}]))
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["field"] == "items[0].contract.default_axis"
    assert "no hidden test calls the function without an axis" in body["message"]
