"""grader.problems.precheck: the visible examples only, for every problem; no hidden call."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS
from grader.problems.precheck import bounded_stdout, precheck
from grader.results import InfrastructureError
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import submission as submission_source, submission_names


class Recording:
    """Wraps a sandbox, keeping every call it was asked to make."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def run(self, source, calls, limits):
        self.calls += list(calls)
        return self.inner.run(source, calls, limits)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_only_the_visible_examples_are_sent_and_a_correct_source_passes_them(fake_sandbox, name):
    problem = PROBLEMS[name]
    sandbox = Recording(fake_sandbox)
    correct = submission_names(name, "correct_")[0]
    found = precheck(problem, "item", submission_source(name, correct), sandbox, Limits())
    visible = problem.visible_cases()
    assert [t["name"] for t in found.tests] == [c.name for c in visible]
    assert [t["status"] for t in found.tests] == ["passed"] * len(visible)
    assert len(sandbox.calls) == sum(len(c.calls) for c in visible)
    assert {c.test for c in sandbox.calls} == {c.name for c in visible}
    assert not any(c.secret or c.optional for c in sandbox.calls)


def test_a_mistake_is_failed_on_the_example_with_its_diagnosis(fake_sandbox):
    source = submission_source("scaled_dot_product_attention", "bug_scale_by_d_k")
    found = precheck(PROBLEMS["scaled_dot_product_attention"], "sdpa", source, fake_sandbox,
                     Limits())
    assert found.to_dict()["passed"] == 2 and found.to_dict()["total"] == 3
    assert "divided by d_k instead of sqrt(d_k)" in found.tests[0]["output"]
    assert found.tests[0]["output"].count("Expected output:") == 1


def test_a_sandbox_fault_is_raised_never_scored(broken_sandbox):
    with pytest.raises(InfrastructureError, match="isolation self-test failed"):
        precheck(PROBLEMS["softmax"], "s", "def softmax(x, axis=-1):\n    return x\n",
                 broken_sandbox, Limits())


def test_printed_output_is_bounded_with_a_note():
    assert bounded_stdout("abc", limit=5) == "abc"
    assert bounded_stdout("abcdefgh", limit=5) == "abcde\n[output trimmed: 3 more characters printed]"
