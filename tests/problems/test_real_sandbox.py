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

    limits = Limits(wall_seconds=2.0, cpu_seconds=2.0, run_wall_seconds=5.0)
    result = scoring.grade(PROBLEMS["scaled_dot_product_attention"], "sdpa", 10, source,
                           real_sandbox, limits, seed=1)
    assert result.status == "graded" and result.score == 0
    # the first test stops at its 2 s limit (CPU or wall-clock), the later ones at the tighter
    # 1 s, until the run's 5 s are spent
    first = result.tests[0]
    assert first.output.startswith("Failed: this test exceeded the 2 s "), first.output
    assert result.tests[1].output.startswith("Failed: this test exceeded the 1 s ")
    assert "the later ones with a tighter limit of 1 s each" in result.output
    assert "Then the run's total time limit (5 s) was reached; the remaining tests were not " \
        "run." in result.output
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


NUMPY_1_SDPA = '''import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    # written against NumPy 1.x: np.float_ and np.NINF were removed in NumPy 2.0
    Q, K, V = (np.asarray(a, dtype=np.float_) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, np.NINF)
    scores = scores - scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(-1, keepdims=True)
    return w @ V, w
'''


def test_correct_numpy_1_code_gets_full_marks_and_the_trusted_numpy_is_untouched(real_sandbox):
    import numpy as np

    result = grade_source(real_sandbox, "scaled_dot_product_attention", NUMPY_1_SDPA)
    assert [t.name for t in result.tests if t.status == "failed"] == []
    assert result.score == pytest.approx(10.0, abs=1e-4)
    # the aliases live in the sandbox's NumPy only, never in the trusted process
    for name in ("float_", "NINF", "product", "asfarray"):
        assert name not in np.__dict__


LAZY_NUMPY_SOFTMAX = """\
import numpy as np
{imports}

def softmax(x, axis=-1):
    _ = np.random  # touched, as code with an optional dropout does
    x = np.ma.filled(np.ma.asarray(x), 0.0)
    shift = np.fft.fft(np.zeros(1)).real[0] + np.linalg.norm(np.zeros(1))
    e = np.exp(x - np.max(x, axis=axis, keepdims=True) - shift)
    return e / e.sum(axis=axis, keepdims=True)
"""


@pytest.mark.parametrize("imports", ["", "import numpy.random\nimport numpy.ma"])
def test_numpy_submodules_imported_on_first_use_work_in_every_call(real_sandbox, imports):
    # np.random, np.ma, np.fft are imported by numpy.__getattr__ on first use; bound only inside
    # a job, they were unbound again after each call while sys.modules kept them, and the next
    # use recursed (RecursionError): correct code scored 0.67/10, or 0 with the imports
    result = grade_source(real_sandbox, "softmax", LAZY_NUMPY_SOFTMAX.format(imports=imports))
    assert [t.name for t in result.tests if t.status == "failed"] == []
    assert result.score == pytest.approx(10.0, abs=1e-4)


def test_every_contract_states_the_numpy_version():
    from grader.problems.base import NUMPY_NOTE

    assert "NumPy 2.x; the aliases NumPy 2.0 removed" in NUMPY_NOTE
    assert all(problem.contract.endswith(NUMPY_NOTE) for problem in PROBLEMS.values())
