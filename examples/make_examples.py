"""Regenerate the JSON request bodies in this folder from the .py and .txt responses beside them.

Run: python examples/make_examples.py  (tests/test_examples.py checks the JSON files are current).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

BODIES = {
    "submission_correct.json": {
        "learner_id": "learner-001",
        "responses": {
            "sdpa": {"code": "sdpa_correct.py"},
            "quadratic-cost": {"text": "quadratic_cost_model_answer.txt"},
            "no-positions": {"choice": "B"},
        },
    },
    "submission_divides_by_dk.json": {
        "learner_id": "learner-002",
        "responses": {"sdpa": {"code": "sdpa_divides_by_dk.py"}},
    },
    "submission_text.json": {
        "learner_id": "learner-003",
        "responses": {"quadratic-cost": {"text": "quadratic_cost_model_answer.txt"}},
    },
}


def build(spec: dict) -> dict:
    responses = {}
    for item_id, response in spec["responses"].items():
        [(field, value)] = response.items()
        if field in ("code", "text"):
            value = (HERE / value).read_text(encoding="utf-8")
        responses[item_id] = {field: value}
    return {"learner_id": spec["learner_id"], "responses": responses}


def main() -> None:
    for name, spec in BODIES.items():
        (HERE / name).write_text(json.dumps(build(spec), indent=2, ensure_ascii=False) + "\n",
                                 encoding="utf-8")


if __name__ == "__main__":
    main()
