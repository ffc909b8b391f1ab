"""Contract options of a code item through the API (issue 21, part 1): validated when the
assignment is uploaded (422 naming the field), shown in the course's names, graded in the
course's convention."""
from __future__ import annotations

import pytest

TF_ATTENTION = '''import numpy as np


def sdp_attention(q, k, v, mask):
    matmul_qk = q @ np.swapaxes(k, -1, -2)
    logits = matmul_qk / np.sqrt(k.shape[-1])
    if mask is not None:
        logits += mask * -1e9
    logits = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''

OPTIONS = {"function": "sdp_attention", "parameters": ["q", "k", "v", "mask"],
           "mask": "numeric-blocked", "returns": "output+weights"}


def _assignment(contract, problem="scaled_dot_product_attention", assignment_id="hw-course"):
    return {"id": assignment_id, "title": "Course conventions", "items": [
        {"id": "intro", "kind": "choice", "points": 1, "prompt": "?",
         "options": {"A": "a", "B": "b"}, "answer": "A"},
        {"id": "sdpa", "kind": "code", "points": 10, "problem": problem,
         "contract": contract}]}


@pytest.mark.parametrize("contract,field,reason", [
    ({"mask": "True-blocked"}, "items[1].contract.mask",
     "must be one of allowed, blocked, numeric-allowed, numeric-blocked, additive"),
    ({"returns": "both"}, "items[1].contract.returns",
     "must be one of output, output+weights, weights+output, weights"),
    ({"retruns": "weights"}, "items[1].contract.retruns", "not an option of problem"),
    ({"layout": "halves"}, "items[1].contract.layout", "not an option of problem"),
    ({"ranks": [7]}, "items[1].contract.ranks", "input ranks among 2, 3, 4"),
    ({"parameters": ["q", "k"]}, "items[1].contract.parameters",
     "must be a list of 4 parameter names"),
    ({"function": "1attention"}, "items[1].contract.function", "Python function name"),
    ("blocked", "items[1].contract", "must be a mapping of options"),
])
def test_a_bad_contract_option_is_422_naming_the_field(client, contract, field, reason):
    response = client.post("/api/v1/assignments", json=_assignment(contract))
    body = response.get_json()
    assert response.status_code == 422, body
    assert body["field"] == field
    assert reason in body["message"]


def test_a_course_item_is_shown_and_graded_in_the_courses_conventions(client):
    from tests.conftest import wait_final

    response = client.post("/api/v1/assignments", json=_assignment(OPTIONS))
    assert response.status_code == 201, response.get_json()
    shown = client.get("/api/v1/assignments/hw-course").get_json()
    item = next(i for i in shown["items"] if i["id"] == "sdpa")
    assert item["function"] == "sdp_attention"
    assert item["contract"].startswith("def sdp_attention(q, k, v, mask=None)\n")
    assert "def sdp_attention(q, k, v, mask=None):" in item["starter"]
    masked = next(e for e in item["visible_tests"] if "causal mask" in e["name"])
    assert masked["inputs"]["mask"] == [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    sid = client.post("/api/v1/assignments/hw-course/submissions", json={
        "learner_id": "l1", "responses": {"intro": {"choice": "A"},
                                          "sdpa": {"code": TF_ATTENTION}}}).get_json()["id"]
    result = wait_final(lambda: client.get(f"/api/v1/submissions/{sid}").get_json())
    code = next(i for i in result["items"] if i["item_id"] == "sdpa")
    assert code["score"] == 10.0, code["output"]
