"""Same code, same score: the hidden inputs are drawn per submission from a seed, and no draw may
change what a submission earns or which mistakes it is told about.

Every correct and every buggy sample submission (grader/problems/builtin/<id>/samples/) and every
known mistake's implementation (graded as a learner's code) is graded on 50 seeds
(:func:`grader.problems.trial.check_seed_invariance`); its score, the pass/fail of every test and
the diagnosis of every failing test must be the same on all 50. The samples run in the in-process
fake sandbox; the cases of a seed and the reference's and mistakes' values on them are computed
once per seed (the problem's draw cache and executor), whichever implementation is graded.
"""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, scoring, trial
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import submission, submission_names

SEEDS = range(50)  # the issue asks for at least 50 draws per implementation


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_implementation_gets_the_same_grade_on_every_draw(fake_sandbox, problem):
    learners = trial.implementation_learners(PROBLEMS[problem])
    files = submission_names(problem, "correct_") + submission_names(problem, "bug_")
    learners |= {name: (submission(problem, name), fake_sandbox) for name in files}
    assert len(learners) >= 10 and len(files) >= 4
    found = trial.check_seed_invariance(PROBLEMS[problem], SEEDS, learners)
    assert found == [], "\n".join(f.message for f in found)


def _graded_on_every_seed(fake_sandbox, problem: str, name: str):
    for seed in SEEDS:
        yield seed, scoring.grade(PROBLEMS[problem], "item", 10.0, submission(problem, name),
                                  fake_sandbox, Limits(), seed)


def test_a_global_maximum_softmax_loses_exactly_the_stability_points_on_every_draw(fake_sandbox):
    # softmax weights: shapes 1, axis 2.5, values 2, stability 2, properties 1, dtypes 1,
    # inputs 0.5; total 10, so on 10 points a category is worth its weight. Subtracting one global
    # maximum fails the stability tests whose rows (or slices along axis 0) spread wider than
    # exp's range (every row but the top one underflows to 0/0), five of the six; on the 1-D
    # input one global maximum is the row's maximum, so it passes, and nothing else fails (in
    # every other case the rows' maxima lie within about 100 of one another, where
    # exp(x - global max) is still exact). Stability is 2 points over 6 tests; with the balance
    # between tests on 1-D input and tests on inputs with leading axes, the 1-D test alone holds
    # half of them (1.0) and the five others share the other half (0.2 each): the five failing
    # tests are the whole leading-axes half, 10 - 1.0 = 9.0 (8.33 before the balance, when the
    # 1-D test held 0.33 by largest remainder; the issue saw 8.0 and 8.67 before the draws were
    # pinned).
    stability = [c.name for c in PROBLEMS["softmax"].cases(0) if c.category == "stability"]
    assert len(stability) == 6 and stability[4] == "stability: a 1-D input in the thousands"
    for seed, result in _graded_on_every_seed(fake_sandbox, "softmax", "bug_global_max"):
        failed = {t.name for t in result.tests if t.status == "failed"}
        assert failed == set(stability) - {stability[4]}, seed
        assert result.score == pytest.approx(9.0, abs=1e-6), seed
        assert all("diagnosis:global_max" in t.tags for t in result.tests
                   if t.status == "failed"), seed


def test_attention_scaled_only_when_a_mask_is_given_loses_exactly_the_scaling_points(
        fake_sandbox):
    # scaled_dot_product_attention weights: shapes 1, scaling 2, softmax 1.5, values 1,
    # masking 2, stability 1, properties 0.5, dtypes 0.5, inputs 0.5; total 10. The scale written
    # in the masked branch only fails the 4 unmasked scaling tests (1 visible + 3 hidden, all with
    # d_k > 1; the fifth scaling test has a mask and passes) and nothing else: every other value
    # test has d_k = 1 or a scale-free answer (identical keys; a dominant key 24 apart even at
    # scale 1/d_k). Scaling's 2 points are half without a batch axis (the example and 'no batch
    # axis': 0.5 each, both lost) and half with one, split in the item's thousandths by largest
    # remainder (0.334, 0.333, 0.333 in case order: the first two lost, the masked third
    # passes): 10 - 1 - 0.667 = 8.333.
    scaling = {c.name for c in PROBLEMS["scaled_dot_product_attention"].cases(0)
               if c.category == "scaling" and "masked" not in c.traits}
    assert len(scaling) == 4
    for seed, result in _graded_on_every_seed(fake_sandbox, "scaled_dot_product_attention",
                                              "bug_scales_only_with_a_mask"):
        failed = {t.name for t in result.tests if t.status == "failed"}
        assert failed == scaling, seed
        assert result.score == pytest.approx(8.333, abs=1e-6), seed


def test_attention_that_assumes_lq_equals_lk_scores_the_same_on_every_draw(fake_sandbox):
    # The 2.67: code that builds its default mask as (Lq, Lq) crashes on every unmasked
    # case with Lq != Lk. Each category's points are half for the tests without a batch axis,
    # half for those with one (split equally within each half, by largest remainder in the
    # item's thousandths, in case order). Passing: the 8 masking tests (2 points, they bring
    # their own mask), the one scaling test with a mask (third of the 3 batched scaling tests:
    # 1 point as 0.334, 0.333, 0.333: 0.333), the two stability tests with a mask (the batched
    # one is the third of 3 sharing 0.5: 0.167, 0.167, 0.166; the unbatched one is one of 2
    # sharing 0.5: 0.25), 'a sequence of length 1' (Lq = Lk = 1; second of the 3 batched
    # properties tests sharing 0.25: 0.084, 0.083, 0.083) and both inputs tests (0.5, credited
    # since value tests pass): 2 + 0.333 + 0.166 + 0.25 + 0.083 + 0.5 = 3.332 on every draw.
    problem = PROBLEMS["scaled_dot_product_attention"]
    passing = {c.name for c in problem.cases(0)
               if c.category in ("masking", "inputs") or "mask-elsewhere" in c.traits
               or c.name == "properties: a sequence of length 1 returns v_1"}
    assert len(passing) == 14
    for seed, result in _graded_on_every_seed(fake_sandbox, "scaled_dot_product_attention",
                                              "bug_assumes_lq_equals_lk"):
        assert {t.name for t in result.tests if t.status == "passed"} == passing, seed
        assert result.score == pytest.approx(2 + 0.333 + 0.166 + 0.25 + 0.083 + 0.5,
                                             abs=1e-6), seed
