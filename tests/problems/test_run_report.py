"""The item summary for runs that did not finish, and the score line, read as plain sentences."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, grading
from grader.sandbox.api import CallOutcome, Limits, RunResult
from tests.problems.conftest import FakeSandbox
from tests.problems.problem_helpers import grade_file, grade_source

SDPA = "scaled_dot_product_attention"
CORRECT = ("import numpy as np\n\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n"
           "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
           "    s = s if mask is None else np.where(mask, s, -np.inf)\n"
           "    w = np.exp(s - s.max(-1, keepdims=True))\n"
           "    return (w / w.sum(-1, keepdims=True)) @ V\n")


class StoppingSandbox(FakeSandbox):
    """Runs the fake sandbox, then pretends the run stopped at call ``stop`` with ``status``
    (the way grader/sandbox/collect.py reports it: that call marked, the rest skipped)."""

    def __init__(self, stop: int, status: str, message: str, call_status: str = "exception"):
        super().__init__()
        self.stop, self.status, self.message, self.call_status = stop, status, message, call_status

    def run(self, source, calls, limits):
        full = super().run(source, calls, limits)
        outcomes = full.calls[:self.stop] + [CallOutcome(self.call_status, error=self.message)]
        outcomes += [CallOutcome("skipped", error="not run: " + self.message)
                     for _ in calls[self.stop + 1:]]
        return RunResult(self.status, calls=outcomes, message=self.message)


def _case_names(seed: int) -> list[str]:
    cases = PROBLEMS[SDPA].cases(seed)
    return [case.name for case in cases for _ in case.calls]


def test_syntax_error_summary_names_the_line_and_the_error(fake_sandbox):
    source = ("import numpy as np\ndef scaled_dot_product_attention(Q, K, V, mask=None)\n"
              "    return Q\n")
    result = grade_source(fake_sandbox, SDPA, source)
    first_lines = result.output.splitlines()[1]
    assert first_lines == ("Your code has a syntax error on line 2: SyntaxError: expected ':'. "
                           "No test could run.")
    assert all(t.output.startswith("Failed: not run: your code has a syntax error on line 2")
               for t in result.tests)


def test_import_error_summary_names_the_line_and_the_error(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, "import numpy as np\nx = 1 / 0\n")
    assert result.output.splitlines()[1] == (
        "Your code raised an error while being imported (line 2): ZeroDivisionError: division by "
        "zero. No test could run.")


def test_timeout_summary_names_the_test_the_limit_and_how_many_tests_finished():
    names = _case_names(7)
    stuck = names[6]
    sandbox = StoppingSandbox(6, "timeout", f"test '{stuck}' exceeded the time limit "
                              "(5 s wall-clock)", call_status="timeout")
    result = grade_source(sandbox, SDPA, CORRECT)
    finished = len(dict.fromkeys(names[:6]))
    assert (f"The run exceeded the 5 s time limit while running test '{stuck}'; {finished} of "
            f"{len(result.tests)} tests had finished. All tests of a submission run in one "
            "sandbox run under one time limit, so the tests after it did not run."
            ) in result.output
    stuck_test = next(t for t in result.tests if t.name == stuck)
    assert "the run exceeded the 5 s time limit while running this test" in stuck_test.output
    assert result.score == pytest.approx(sum(t.max_score for t in result.tests[:finished]),
                                         abs=1e-5)


def test_memory_and_output_limits_are_named_with_their_size_and_test():
    names = _case_names(7)
    memory = StoppingSandbox(3, "memory_limit",
                             f"test '{names[3]}' exceeded the memory limit (1 GiB)")
    result = grade_source(memory, SDPA, CORRECT)
    assert (f"Your code exceeded the memory limit (1 GiB) while running test '{names[3]}'; 3 of "
            ) in result.output
    output = StoppingSandbox(0, "output_limit", "your code printed far more than the output "
                             "limit (64 KiB) and was stopped")
    result = grade_source(output, SDPA, CORRECT)
    assert (f"Your code printed more than the output limit (64 KiB) while running test "
            f"'{names[0]}' and was stopped; 0 of {len(result.tests)} tests had finished."
            ) in result.output


def test_score_line_separates_what_hidden_tests_are_worth_from_the_score(fake_sandbox):
    result = grade_file(fake_sandbox, SDPA, "bug_scale_by_d_k")
    hidden = [t for t in result.tests if t.visibility == "hidden"]
    worth = round(sum(t.max_score for t in hidden), 2)
    assert result.output.splitlines()[0] == (
        f"{len(hidden)} hidden tests ran; they are worth {worth:g} of the 10 points and count "
        f"towards your score. The 3 visible examples are worth the other {round(10 - worth, 2):g} "
        f"points. You scored 8 of 10 (passed {sum(t.status == 'passed' for t in result.tests)} "
        f"of {len(result.tests)} tests).")


def test_limits_in_the_summary_come_from_the_item(fake_sandbox):
    names = _case_names(7)
    sandbox = StoppingSandbox(2, "timeout", f"test '{names[2]}' exceeded the time limit "
                              "(2 s CPU)", call_status="timeout")
    result = grading.grade(PROBLEMS[SDPA], "item", 10, CORRECT, sandbox,
                           Limits(wall_seconds=3.0, cpu_seconds=2.0), seed=7)
    assert f"The run exceeded the 2 s CPU-time limit while running test '{names[2]}'" \
        in result.output
