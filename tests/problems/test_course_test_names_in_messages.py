"""Under contract options a hidden test is shown under the course's name
(``CourseAdapter.test_names``), and every message that quotes a test quotes that name: the
sandbox's "... ended during test '...'", the run summary and the NaN note's "e.g. test '...'".
With ``shape: [1, n, n]`` causal_mask's first hidden test, today's "shapes: a square (n, n)
array", is shown as "shapes: a square (1, n, n) array"; the visible example n = 3 comes first."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, run_report, scoring
from grader.problems.course import compile_course
from grader.sandbox.api import CallOutcome, Limits, RunResult, StoppedTest

OWN, SHOWN = "shapes: a square (n, n) array", "shapes: a square (1, n, n) array"


def _problem():
    return compile_course(PROBLEMS["causal_mask"], {"shape": [1, "n", "n"]})


def _source(hidden_line: str) -> str:
    return ("import os\nimport numpy as np\n\n\ndef causal_mask(n):\n    if n != 3:\n"
            f"        {hidden_line}\n    return np.tril(np.ones((1, n, n), dtype=bool))\n")


@pytest.fixture(scope="module")
def real_sandbox(unsafe_dev_sandbox):
    return unsafe_dev_sandbox


def test_the_course_renames_the_first_hidden_test():
    assert _problem().course.test_names[OWN] == SHOWN


def test_a_process_ending_in_a_renamed_test_quotes_the_shown_name(real_sandbox):
    result = scoring.grade(_problem(), "item", 10.0, _source("os._exit(3)"), real_sandbox,
                           Limits(), 3)
    first = next(t for t in result.tests if t.name == SHOWN)
    assert first.status == "failed"
    assert f"ended during test '{SHOWN}'" in first.output
    assert f"'{SHOWN}' (ended the process running your code; input sizes: n " in result.output
    assert OWN not in result.output
    assert all(OWN not in t.output for t in result.tests)


def test_the_nan_note_quotes_the_shown_name(fake_sandbox):
    result = scoring.grade(_problem(), "item", 10.0, _source("return np.full((1, n, n), np.nan)"),
                           fake_sandbox, Limits(), 3)
    # 8 hidden tests return NaN; the example (n = 3) passes
    assert ("your output contains NaN/inf in 8 of 9 tests "
            f"(e.g. test '{SHOWN}': your output contains NaN or inf entries)") in result.output


def test_renamed_rewrites_every_sandbox_message_and_keeps_the_case_names():
    run = RunResult(
        status="timeout", message=f"test '{OWN}' exceeded the time limit (wall)",
        calls=[CallOutcome("timeout", error=f"test '{OWN}' exceeded the time limit (wall)"),
               CallOutcome("skipped", error=f"not run: test '{OWN}' stopped earlier"),
               CallOutcome("ok", value=1)],
        stopped_test=OWN,
        stopped_tests=[StoppedTest(OWN, "crashed",
                                   f"the process running your code ended during test '{OWN}'")])
    shown = run_report.renamed(run, {OWN: SHOWN, "values: a short sequence":
                                     "values: a short sequence"})
    assert shown.message == f"test '{SHOWN}' exceeded the time limit (wall)"
    assert [c.error for c in shown.calls] == [
        f"test '{SHOWN}' exceeded the time limit (wall)",
        f"not run: test '{SHOWN}' stopped earlier", ""]
    assert shown.stopped_tests[0].message == (
        f"the process running your code ended during test '{SHOWN}'")
    # which test stopped is still said by the case's own name (it keys the results)
    assert shown.stopped_test == OWN and shown.stopped_tests[0].test == OWN
    assert run_report.renamed(run, {}) is run


def test_the_summary_of_a_stopped_run_quotes_the_shown_name():
    case = next(c for c in _problem().cases(3) if c.name == OWN)
    run = RunResult(status="timeout", message="x", calls=[], stopped_test=OWN, limit="wall")
    found = run_report.report(run, [case], Limits(), ("n",), {OWN: SHOWN})
    assert f"while running test '{SHOWN}'" in found.summary
    assert found.not_run == f"not run: the run stopped in test '{SHOWN}' (see the summary)"
    assert list(found.stopped) == [OWN]
