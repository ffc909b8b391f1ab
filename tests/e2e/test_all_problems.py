"""Every code problem is gradable through the API (embedded default) and the CLI."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.problems import samples
from grader.problems.builtin import FAMILY_ASSIGNMENT, family_assignment
from tests.conftest import ROOT

#: item id -> problem id: every built-in problem, as the generated assignment lists them
ITEMS = {item["id"]: item["problem"] for item in family_assignment()["items"]}


def correct_file(problem: str) -> Path:
    return samples.directory(problem) / f"{samples.names(problem, 'correct_')[0]}.py"


def bug_file(problem: str) -> Path:
    return samples.directory(problem) / f"{samples.names(problem, 'bug_')[0]}.py"


def test_every_problem_graded_through_the_api(client):
    responses = {item: {"code": correct_file(problem).read_text()} for item, problem in ITEMS.items()}
    sid = client.post(f"/api/v1/assignments/{FAMILY_ASSIGNMENT}/submissions",
                      json={"learner_id": "l", "responses": responses}).get_json()["id"]
    result = client.get(f"/api/v1/submissions/{sid}?wait=60").get_json()
    assert result["status"] == "graded", result
    assert {i["item_id"]: i["score"] for i in result["items"]} == {item: 10.0 for item in ITEMS}


@pytest.mark.parametrize("item,problem", sorted(ITEMS.items()))
def test_every_problem_graded_by_the_cli_with_a_diagnosis(item, problem):
    grader = str(Path(sys.executable).parent / "grader")
    out = subprocess.run([grader, "grade", FAMILY_ASSIGNMENT, item, str(bug_file(problem)), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["score"] < 10.0
    assert any(tag.startswith("diagnosis:") for test in result["tests"] for tag in test["tags"])
