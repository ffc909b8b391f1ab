"""The ``code`` item kind: loading from YAML, what learners see, response validation, grading
through a sandbox, and infrastructure faults that are never scored."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.items.base import GradingContext
from grader.items.code import CodeKind
from grader.problems import PROBLEMS
from grader.results import InfrastructureError
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import submission

RAW = {"id": "sdpa", "kind": "code", "points": 10, "problem": "scaled_dot_product_attention",
       "limits": {"wall_seconds": 5}}


def load(**changes):
    return CodeKind().load("sdpa", {**RAW, **changes}, Path("."))


def test_load_builds_the_spec_with_problem_and_limits():
    item = load()
    assert item.kind == "code" and item.points == 10.0
    assert item.spec == {"problem": "scaled_dot_product_attention",
                         "limits": Limits(wall_seconds=5)}
    assert item.prompt == PROBLEMS["scaled_dot_product_attention"].title


@pytest.mark.parametrize("changes, field", [
    ({"problem": "attention_v2"}, "problem"),
    ({"limits": {"wall_secs": 5}}, "limits"),
    ({"limits": 5}, "limits"),
    ({"limits": {"imports": ["no_such_module_here"]}}, "limits"),
    ({"limits": {"imports": "scipy"}}, "limits"),
    ({"points": -1}, "points"),
])
def test_load_rejects_bad_fields_naming_them(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        load(**changes)


def test_an_item_may_allow_imports_and_learners_see_which():
    item = load(limits={"imports": ["scipy"]})
    assert item.spec["limits"].imports == ("scipy",)
    assert CodeKind().public_view(item)["imports"] == ["scipy"]
    assert CodeKind().public_view(load())["imports"] == []
    with pytest.raises(ValueError, match=r"^limits: limits\.imports: 'json' is always"):
        load(limits={"imports": ["json"]})


def test_public_view_has_contract_starter_and_examples_but_no_hidden_case():
    view = CodeKind().public_view(load())
    assert view["function"] == "scaled_dot_product_attention"
    assert "True where the query MAY attend" in view["contract"]
    assert "def scaled_dot_product_attention(Q, K, V, mask=None)" in view["starter"]
    assert len(view["visible_tests"]) == 3
    assert all({"inputs", "expected_output"} <= set(t) for t in view["visible_tests"])
    text = json.dumps(view)
    hidden = [c for c in PROBLEMS["scaled_dot_product_attention"].cases(0) if not c.visible]
    assert not any(c.name in text for c in hidden)


@pytest.mark.parametrize("response", [{"text": "x"}, {"code": 3}, {"code": "x", "more": 1}, []])
def test_validate_response_rejects_anything_but_one_code_string(response):
    assert CodeKind().validate_response(load(), response)


def test_validate_response_accepts_code():
    assert CodeKind().validate_response(load(), {"code": "x = 1"}) is None


def test_grade_runs_in_the_context_sandbox_with_the_seed(fake_sandbox):
    item = load()
    ctx = GradingContext(seed=5, sandbox=fake_sandbox)
    result = CodeKind().grade(item, {"code": submission(item.spec["problem"],
                                                        "bug_scale_by_d_k")}, ctx)
    assert result.item_id == "sdpa" and result.kind == "code" and result.status == "graded"
    assert result.score == pytest.approx(8.0, abs=1e-4) and result.max_score == 10.0
    assert "diagnosis:scale_by_d_k" in {tag for t in result.tests for tag in t.tags}
    assert fake_sandbox.runs == 1


@pytest.mark.parametrize("code", ["", "   ", "\n\t\n"])
def test_empty_code_scores_zero_without_running_and_says_so(fake_sandbox, code):
    result = CodeKind().grade(load(), {"code": code}, GradingContext(seed=5, sandbox=fake_sandbox))
    assert (result.score, result.max_score, result.output) == (
        0.0, 10.0, "The code submitted is empty, so nothing was run and it scores 0.")
    assert fake_sandbox.runs == 0


def test_infrastructure_fault_raises_instead_of_scoring_zero(broken_sandbox):
    with pytest.raises(InfrastructureError, match="isolation self-test failed"):
        CodeKind().grade(load(), {"code": "x = 1"}, GradingContext(seed=1, sandbox=broken_sandbox))


def test_missing_sandbox_is_an_infrastructure_fault():
    with pytest.raises(InfrastructureError):
        CodeKind().grade(load(), {"code": "x = 1"}, GradingContext(seed=1, sandbox=None))


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_problem_loads_and_shows_only_visible_examples(problem):
    item = CodeKind().load("item", {**RAW, "problem": problem}, Path("."))
    view = CodeKind().public_view(item)
    assert view["function"] == PROBLEMS[problem].function
    assert f"def {view['function']}(" in view["starter"] and view["contract"]
    assert view["visible_tests"] and all("expected_output" in t for t in view["visible_tests"])
    hidden_names = {c.name for c in PROBLEMS[problem].cases(0) if not c.visible}
    assert not hidden_names & {t["name"] for t in view["visible_tests"]}
    assert not any(name in json.dumps(view) for name in hidden_names)


def test_overlong_code_is_refused_with_its_length_and_the_limit():
    # worded as the text kind words its limit ("... 20001 characters long; the limit is 20000")
    source = "x" * 100_001
    assert CodeKind().validate_response(load(), {"code": source}) == (
        "code is 100001 characters long; the limit is 100000")
    assert CodeKind().validate_response(load(), {"code": source[:-1]}) is None


def test_overlong_notebook_code_is_refused_naming_the_notebook():
    from nbformat import writes
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = writes(new_notebook(cells=[new_code_cell("x" * 100_000)]))
    # one cell's source and the newline that ends it: 100001 characters of code
    assert CodeKind().validate_response(load(), {"notebook": notebook}) == (
        "notebook: its code is 100001 characters long; the limit is 100000")
