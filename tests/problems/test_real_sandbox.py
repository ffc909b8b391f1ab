"""The problems graded through the real sandbox (``get_sandbox("unsafe-dev")``: the same fork
server and wire format as production, without the isolation layers, which the sandbox's own tests
cover). Results must equal those of the in-process fake, and learner faults must be graded zeros."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS
from grader.sandbox import get_sandbox
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import grade_file, grade_source, submission_names


@pytest.fixture(scope="module")
def real_sandbox():
    sandbox = get_sandbox("unsafe-dev")
    yield sandbox
    sandbox.close()


def _summary(result):
    return [(t.name, t.status, round(t.score, 6), sorted(t.tags)) for t in result.tests]


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_real_and_fake_sandbox_grade_alike(real_sandbox, fake_sandbox, problem):
    for name in submission_names(problem, "correct_")[:1] + submission_names(problem, "bug_"):
        real = grade_file(real_sandbox, problem, name, seed=3)
        fake = grade_file(fake_sandbox, problem, name, seed=3)
        assert _summary(real) == _summary(fake), name


def test_infinite_loop_is_a_graded_zero_with_the_limit_named(real_sandbox):
    source = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
              "    while True:\n"
              "        pass\n")
    from grader.problems import scoring

    result = scoring.grade(PROBLEMS["scaled_dot_product_attention"], "sdpa", 10, source,
                           real_sandbox, Limits(wall_seconds=1.0, cpu_seconds=1.0), seed=1)
    assert result.status == "graded" and result.score == 0
    # each of the first four tests stops (1 s, CPU or wall-clock), then the run gives up
    assert "3 tests stopped the process running your code and lost their points: 'example: " \
        in result.output
    assert "(exceeded the 1 s " in result.output
    assert "Then 3 tests stopped (time or memory limit, crash or oversized return); the " \
        "remaining tests were not run." in result.output
    assert all(t.status == "failed" for t in result.tests)


def test_import_time_crash_is_a_graded_zero(real_sandbox):
    result = grade_source(real_sandbox, "softmax", "import numpy as np\nraise SystemExit(0)\n")
    assert result.score == 0 and result.status == "graded"
    assert ("Your code could not be imported: your code called sys.exit(0) while being "
            "imported. No test could run.") in result.output


def test_syntax_error_summary_from_the_real_sandbox(real_sandbox):
    source = "import numpy as np\ndef softmax(x, axis=-1)\n    return x\n"
    result = grade_source(real_sandbox, "softmax", source)
    assert result.output.splitlines()[1] == ("Your code has a syntax error on line 2: "
                                             "SyntaxError: expected ':'. No test could run.")
