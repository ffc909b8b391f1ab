"""Partial code is scored fairly (issue 21, part 3): code right on one input rank only loses the
same share whichever rank it handles, and is named; a crash never reads as a mutation.

Each SDPA and MHA category has tests without and with a batch axis, and each side carries half of
the category's points (ProblemSpec.balance = "batched"), so code that raises on every input of
one side earns exactly half of every category: 5 of 10, whichever side it is.
"""
from __future__ import annotations

import re

import pytest

from grader.problems import PROBLEMS, samples
from tests.problems.problem_helpers import diagnoses, grade_source

SDPA = "scaled_dot_product_attention"
MHA = "multi_head_attention"


def _guarded(problem: str, condition: str) -> str:
    """A correct sample that raises first when ``condition`` holds of its first argument."""
    name = "correct_reshape_transpose" if problem == MHA else "correct_matmul"
    source = samples.source(problem, name)
    return re.sub(r"(def \w+\((\w+)[^)]*\):\n)", lambda m: m.group(1) + (
        f"    if {condition.format(x=m.group(2))}:\n        raise ValueError('rank')\n"),
        source, count=1)


@pytest.mark.parametrize("problem", [SDPA, MHA])
@pytest.mark.parametrize("seed", [1, 7])
def test_code_right_on_one_rank_only_scores_half_whichever_rank(fake_sandbox, problem, seed):
    """Before: SDPA 1.47 (unbatched only) against 8.53 (batched only); MHA 1.68 against 8.32."""
    unbatched_only = grade_source(fake_sandbox, problem, _guarded(problem, "{x}.ndim > 2"), seed)
    batched_only = grade_source(fake_sandbox, problem, _guarded(problem, "{x}.ndim == 2"), seed)
    assert unbatched_only.score == pytest.approx(5.0, abs=1e-6)
    assert batched_only.score == pytest.approx(5.0, abs=1e-6)
    assert diagnoses(unbatched_only) == {"fails_with_batch_axes"}
    assert diagnoses(batched_only) == {"fails_without_batch_axis"}
    assert "Your code works only with a batch axis" in batched_only.output


@pytest.mark.parametrize("problem", [SDPA, MHA])
def test_every_category_has_tests_without_and_with_a_batch_axis(problem):
    sides = {}
    for case in PROBLEMS[problem].cases(3):
        sides.setdefault(case.category, set()).add("batched" in case.traits)
    assert sides and all(found == {True, False} for found in sides.values()), sides


def test_a_crash_in_the_inputs_test_says_the_inputs_were_not_checked(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, _guarded(SDPA, "{x}.ndim == 2"))
    test = next(t for t in result.tests
                if t.name == "inputs: Q, K, V and mask are not modified in place, no batch axis")
    assert test.output.startswith("Failed: this test could not run, so whether your function "
                                  "modifies its inputs was not checked: ValueError")
    assert "modifies_inputs" not in diagnoses(result)


# softmax: every category has tests on 1-D input and on inputs with leading axes, each side half
# of the category's points (ProblemSpec.balance = "vector").
def _guarded_softmax(condition: str) -> str:
    source = samples.source("softmax", "correct_keepdims")
    return source.replace("def softmax(x, axis=-1):\n", "def softmax(x, axis=-1):\n"
                          f"    if {condition}:\n        raise ValueError('rank')\n", 1)


@pytest.mark.parametrize("seed", [1, 7])
def test_softmax_right_on_one_rank_only_scores_half_whichever_rank(fake_sandbox, seed):
    """Before: 1.5 (1-D only: the 1-D example, shapes and stability tests) against 8.5. Now each
    of the 7 categories gives its 1-D tests half its points, and the code passes exactly one
    half of every category, each half holding a hidden values test on its own rank that anchors
    its property and inputs tests: 10 / 2 = 5.0 either way."""
    vector_only = grade_source(fake_sandbox, "softmax", _guarded_softmax("x.ndim > 1"), seed)
    leading_only = grade_source(fake_sandbox, "softmax", _guarded_softmax("x.ndim == 1"), seed)
    assert vector_only.score == pytest.approx(5.0, abs=1e-6)
    assert leading_only.score == pytest.approx(5.0, abs=1e-6)
    assert diagnoses(vector_only) == {"fails_with_leading_axes"}
    assert diagnoses(leading_only) == {"fails_on_1d_input"}
    assert "Your code works only on 1-D input" in vector_only.output
    assert "Your code works only with a leading axis" in leading_only.output


def test_every_softmax_category_has_tests_on_1d_input_and_with_leading_axes():
    sides = {}
    for case in PROBLEMS["softmax"].cases(3):
        sides.setdefault(case.category, set()).add(("vector" in case.traits,
                                                    "leading-axes" in case.traits))
    assert sides and all(found == {(True, False), (False, True)} for found in sides.values()), sides
