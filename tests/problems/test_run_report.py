"""The item summary for runs that did not finish, and the score line, read as plain sentences."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, scoring
from grader.sandbox.api import CallOutcome, Limits, RunResult, StoppedTest
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
    and nothing after it ran (how a run ends that cannot go on: an output flood)."""

    def __init__(self, stop: int, status: str, message: str, call_status: str = "exception"):
        super().__init__()
        self.stop, self.status, self.message, self.call_status = stop, status, message, call_status

    def run(self, source, calls, limits):
        full = super().run(source, calls, limits)
        outcomes = full.calls[:self.stop] + [CallOutcome(self.call_status, error=self.message)]
        outcomes += [CallOutcome("skipped", error="not run: " + self.message)
                     for _ in calls[self.stop + 1:]]
        return RunResult(self.status, calls=outcomes, message=self.message)


class StoppedTestsSandbox(FakeSandbox):
    """Runs the fake sandbox, then reports the tests in ``stops`` (test name -> kind) as tests
    that stopped their process, the way grader/sandbox/forkserver.py does: their first call
    marked, every other call run in a fresh process; after ``give_up_after`` stops (in call
    order) the rest are not run."""

    def __init__(self, stops: dict[str, str], give_up_after: int | None = None):
        super().__init__()
        self.stops, self.give_up_after = stops, give_up_after

    def run(self, source, calls, limits):
        outcomes = list(super().run(source, calls, limits).calls)
        stopped, gave_up = [], ""
        first_calls = {}
        for index, call in enumerate(calls):
            first_calls.setdefault(call.test, index)
        for index, kind in sorted((first_calls[name], kind) for name, kind in self.stops.items()):
            message = {"timeout": f"test '{calls[index].test}' exceeded the time limit "
                                  f"({limits.wall_seconds:g} s wall-clock)",
                       "memory_limit": f"test '{calls[index].test}' exceeded the memory limit "
                                       "(1 GiB)"}[kind]
            outcomes[index] = CallOutcome("timeout" if kind == "timeout" else "exception",
                                          error=message, stopped=True)
            stopped.append(StoppedTest(calls[index].test, kind, message))
            if self.give_up_after is not None and len(stopped) >= self.give_up_after:
                gave_up = (f"the run's total time limit ({limits.run_wall_seconds:g} s) was "
                           "reached; the remaining tests were not run")
                outcomes[index + 1:] = [CallOutcome("skipped", error=f"not run: {gave_up}")
                                        for _ in calls[index + 1:]]
                break
        return RunResult(stopped[0].kind, calls=outcomes, message=stopped[0].message,
                         stopped_tests=stopped, gave_up=gave_up)


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


def _single_call_case(seed: int) -> tuple[int, str]:
    """The first hidden SDPA case made of one call (its index among the calls, its name)."""
    cases = PROBLEMS[SDPA].cases(seed)
    index = 0
    for case in cases:
        if len(case.calls) == 1 and not case.visible and not case.wrapped:
            return index, case
        index += len(case.calls)
    raise AssertionError("no single-call case")


def test_a_test_that_times_out_loses_only_its_own_points_and_is_named_with_its_input_sizes():
    _, case = _single_call_case(7)
    result = grade_source(StoppedTestsSandbox({case.name: "timeout"}), SDPA, CORRECT)
    Q, K, V = case.calls[0][0][:3]
    sizes = f"Q {Q.shape}, K {K.shape}, V {V.shape}"
    assert (f"1 test stopped the process running your code and lost its points: '{case.name}' "
            f"(exceeded the 5 s time limit; input sizes: {sizes}"
            ) in result.output
    assert "the other tests ran in a fresh process" in result.output
    stuck = next(t for t in result.tests if t.name == case.name)
    assert stuck.output.startswith("Failed: this test exceeded the 5 s time limit")
    # every other test passed: the score is the item's 10 points less the stuck test's share
    assert result.score == pytest.approx(10 - stuck.max_score, abs=1e-5)
    assert all(t.status == "passed" for t in result.tests if t.name != case.name)


def test_when_the_total_time_runs_out_the_rest_are_reported_as_not_run_with_the_reason():
    names = list(dict.fromkeys(_case_names(7)))  # tests in call order (pictures aside)
    result = grade_source(StoppedTestsSandbox({name: "timeout" for name in names[:3]},
                                              give_up_after=3), SDPA, CORRECT)
    assert "3 tests stopped the process running your code and lost their points" in result.output
    assert ("Then the run's total time limit (30 s) was reached; the remaining tests were not "
            "run.") in result.output
    assert all(t.status == "failed" for t in result.tests)
    assert result.tests[-1].output.startswith("Failed: not run: the run's total time limit")
    assert result.score == 0


def test_memory_and_output_limits_are_named_with_their_size_and_test():
    _, case = _single_call_case(7)
    result = grade_source(StoppedTestsSandbox({case.name: "memory_limit"}), SDPA, CORRECT)
    assert f"'{case.name}' (exceeded the memory limit (1 GiB); input sizes: Q" in result.output
    names = _case_names(7)
    output = StoppingSandbox(0, "output_limit", "your code printed more than the output "
                             "limit (1 MiB; the first 64 KiB printed are kept) and was stopped")
    result = grade_source(output, SDPA, CORRECT)
    # the default 64 KiB kept: stopped past max(16 x 64 KiB, 1 MiB) = 1 MiB printed
    assert (f"Your code printed more than the output limit (1 MiB; the first 64 KiB printed are "
            f"kept) while running test "
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
    _, case = _single_call_case(7)
    result = scoring.grade(PROBLEMS[SDPA], "item", 10, CORRECT,
                           StoppedTestsSandbox({case.name: "timeout"}),
                           Limits(wall_seconds=3.0, cpu_seconds=2.0), seed=7)
    assert f"'{case.name}' (exceeded the 3 s time limit" in result.output
    assert "Each test has its own limits (3 s of time, 2 s of CPU)" in result.output
