"""A correct implementation that hangs on one kind of input loses only the tests with that input
(issue 11, part 3), through the real sandbox with a 1 s per-test limit.

Softmax's category weights (grader/problems/softmax.py) add up to 10, so on a 10-point item each
category is worth its weight: shapes 1 (2 tests: 0.5 each), axis 2.5 (4 tests, the visible
axis=0 example included: 0.625 each), inputs 0.5 (1 test).
"""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS
from grader.problems.scoring import grade
from grader.sandbox import Limits, get_sandbox

SOFTMAX = '''
import numpy as np

def softmax(x, axis=-1):
    if {condition}:
        while True:
            pass
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''
LIMITS = Limits(wall_seconds=1.0)


@pytest.fixture(scope="module")
def sandbox():
    """The real isolation: failing to establish it fails these tests."""
    instance = get_sandbox("auto", run_self_test=False)
    yield instance
    instance.close()


@pytest.mark.parametrize("condition, expected, stopped", [
    # The example: only 'shapes: 1-D input' (7 entries) hangs; the visible [1, 2, 3]
    # has 3 entries, the 1-D stability case (7 too) entries in the thousands, the other 1-D
    # tests 5, 6, 8 or 9 entries. 10 - 0.5 = 9.5 (it scored 1.29 when one hang cost every
    # later test).
    ("x.ndim == 1 and x.size == 7 and np.abs(x).max() < 100", 9.5, ["shapes: 1-D input"]),
    # axis=0 given explicitly on a 2-D input: the visible axis=0 example, 'axis: axis=0 on a 2-D
    # input' and the inputs test on a 2-D x (called with axis 0); not the 3-D stability case on
    # axis=0. The axis category's 2.5 is half (1.25) for its 1-D test and half for the other
    # four: 125 hundredths by largest remainder 0.32, 0.31, 0.31, 0.31 in case order (the
    # example first); the inputs category's 0.5 is 0.25 per side.
    # 10 - 0.32 - 0.31 - 0.25 = 9.12; every other test still runs.
    ("axis == 0 and x.ndim == 2", 9.12, ["example: a 2x3 array with axis=0", "axis: axis=0 on a 2-D input",
                         "inputs: x is not modified in place"]),
])
def test_a_hang_on_one_kind_of_input_costs_only_those_tests(sandbox, condition, expected,
                                                            stopped):
    result = grade(PROBLEMS["softmax"], "softmax", 10, SOFTMAX.format(condition=condition),
                   sandbox, LIMITS, seed=3)
    assert result.score == pytest.approx(expected, abs=1e-6)
    failed = [t.name for t in result.tests if t.status == "failed"]
    assert sorted(failed) == sorted(stopped)
    # the first stop has the item's limit, the later ones the tighter 1 s (here the same 1 s)
    for name in stopped:
        assert f"'{name}' (exceeded the 1 s time limit; input sizes: x (" in result.output


def test_after_a_stopped_test_the_later_ones_still_run_under_a_tighter_limit(sandbox):
    """Hanging on every 2-D input: every test still runs (it used to give up after three
    stops), the later ones under the tighter limit of 1 s (here the item's own). The 2-D tests
    lose their points, no other test does."""
    result = grade(PROBLEMS["softmax"], "softmax", 10, SOFTMAX.format(condition="x.ndim == 2"),
                   sandbox, LIMITS, seed=3)
    two_d = [case.name for case in PROBLEMS["softmax"].cases(3) if case.calls[0][0][0].ndim == 2]
    failed = [t.name for t in result.tests if t.status == "failed"]
    assert sorted(failed) == sorted(two_d)
    assert result.score == pytest.approx(10 - sum(t.max_score for t in result.tests
                                                  if t.name in two_d), abs=1e-6)
    assert "not run" not in result.output
    assert all(t.status == "passed" for t in result.tests if t.name not in two_d)
    assert sum("exceeded the 1 s time limit" in t.output for t in result.tests) == len(two_d)


SDPA = '''
import numpy as np

def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.ndim > 2 and Q.shape[0] == 3:
        {action}
    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ V
'''


def test_hanging_on_an_input_kind_scores_what_raising_on_it_scores(sandbox):
    """The issue's example: a correct SDPA that hangs whenever the batch axis is 3 scored 3.17
    (raising: 7.66) when the run gave up after three stops. Every test now runs (the later ones
    under the tighter 1 s), so the two score the same."""
    problem = PROBLEMS["scaled_dot_product_attention"]
    raising = grade(problem, "sdpa", 10, SDPA.format(action="raise ValueError('B = 3')"),
                    sandbox, Limits(wall_seconds=2.0), seed=3)
    hanging = grade(problem, "sdpa", 10, SDPA.format(action="while True: pass"), sandbox,
                    Limits(wall_seconds=2.0), seed=3)
    assert hanging.score == pytest.approx(raising.score, abs=1e-6)
    assert 0 < raising.score < 10
    assert ([t.name for t in hanging.tests if t.status == "failed"]
            == [t.name for t in raising.tests if t.status == "failed"])
