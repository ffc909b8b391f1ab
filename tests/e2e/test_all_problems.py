"""Every code problem is gradable through the API (embedded default) and the CLI."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SUBMISSIONS = ROOT / "tests" / "problems" / "submissions"
ITEMS = {"softmax": "softmax", "scaled-dot-product-attention": "scaled_dot_product_attention",
         "causal-mask": "causal_mask", "multi-head-attention": "multi_head_attention",
         "positional-encoding": "positional_encoding"}


def correct_file(problem: str) -> Path:
    return sorted((SUBMISSIONS / problem).glob("correct_*.py"))[0]


def bug_file(problem: str) -> Path:
    return sorted((SUBMISSIONS / problem).glob("bug_*.py"))[0]


def test_every_problem_graded_through_the_api(client):
    responses = {item: {"code": correct_file(problem).read_text()} for item, problem in ITEMS.items()}
    sid = client.post("/api/v1/assignments/attention-code/submissions",
                      json={"learner_id": "l", "responses": responses}).get_json()["id"]
    result = client.get(f"/api/v1/submissions/{sid}?wait=60").get_json()
    assert result["status"] == "graded", result
    assert {i["item_id"]: i["score"] for i in result["items"]} == {item: 10.0 for item in ITEMS}


@pytest.mark.parametrize("item,problem", sorted(ITEMS.items()))
def test_every_problem_graded_by_the_cli_with_a_diagnosis(item, problem):
    grader = str(Path(sys.executable).parent / "grader")
    out = subprocess.run([grader, "grade", "attention-code", item, str(bug_file(problem)), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["score"] < 10.0
    assert any(tag.startswith("diagnosis:") for test in result["tests"] for tag in test["tags"])
