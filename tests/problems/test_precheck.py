"""grader.problems.precheck: the visible examples only, for every problem; no hidden call."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, pictures
from grader.problems.precheck import precheck
from grader.problems.printed import bounded_stdout
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
    examples = [c for c in sandbox.calls if not c.optional]
    assert len(examples) == sum(len(c.calls) for c in visible)
    assert {c.test for c in examples} == {c.name for c in visible}
    # the rest are the pictures' calls, on visible examples' inputs; nothing is secret
    assert sandbox.calls[len(examples):] == pictures.calls(problem)
    assert not any(c.secret for c in sandbox.calls)
    assert len(found.pictures) == len(pictures.plans(problem))


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


def test_grading_keeps_what_the_visible_examples_printed_and_never_a_hidden_tests_print():
    """Real sandbox (unsafe-dev: the same fork server): the learner prints each call's Q shape;
    the graded item keeps the prints of the visible examples and pictures (sent before any hidden
    input), in order, and none of the hidden tests'."""
    from grader.problems import pictures, scoring
    from grader.sandbox import get_sandbox

    problem = PROBLEMS["scaled_dot_product_attention"]
    source = submission_source("scaled_dot_product_attention", "bug_scale_by_d_k").replace(
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n",
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n    print('Q', Q.shape)\n", 1)
    assert "print('Q'" in source
    sandbox = get_sandbox("unsafe-dev")
    try:
        result = scoring.grade(problem, "sdpa", 10, source, sandbox, Limits(), seed=11)
    finally:
        sandbox.close()
    sent = [args[0].shape for case in problem.visible_cases() for args, _kwargs in case.calls]
    sent += [call.args[0].shape for call in pictures.calls(problem)]
    assert result.extra_data["visible_output"] == "".join(f"Q {s}\n" for s in sent)
    hidden = [c for c in problem.cases(11) if not c.visible]
    assert len(hidden) > 10 and result.score == pytest.approx(8.0, abs=1e-4)
