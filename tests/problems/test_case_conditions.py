"""Each hidden case has the condition it is named after on every draw, and separates every
known mistake from the reference by a wide margin on every draw (never at the tolerance's
edge, where rounding or the draw would decide the verdict)."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest

from grader.problems import PROBLEMS, conditions, trial
from grader.problems.conditions import CaseConditionError
from grader.problems.draws import draw_inputs
from grader.problems.spec import draw, hidden

SEEDS = range(50)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_case_separates_every_mistake_the_same_way_on_every_draw(problem):
    found = trial.check_verdicts_clear(PROBLEMS[problem], SEEDS)
    assert found == [], "\n".join(f.message for f in found)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_draw_meets_every_case_condition(problem):
    assert trial.check_conditions_hold(PROBLEMS[problem], SEEDS) == []


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_every_mistake_differs_from_the_reference_on_some_hidden_case_of_every_draw(problem):
    assert trial.check_mistakes_separable(PROBLEMS[problem], SEEDS) == []


def test_a_case_drawn_without_its_condition_fails_loudly_naming_the_case_and_condition():
    cases = import_module("grader.problems.builtin.softmax.cases")
    rng = np.random.default_rng(0)
    with pytest.raises(CaseConditionError, match="a naive exp that overflows"):
        cases.stability_rows(rng, [-1.0, 0.0, 1.0], jitter=0.1, spread=1.0, width=4)
    with pytest.raises(CaseConditionError, match="row maxima spread wider"):
        cases.stability_rows(rng, [900.0, 1000.0], jitter=1.0, spread=1.0, width=4)
    with pytest.raises(CaseConditionError, match="an axis whose length differs"):
        cases.axis_input(rng, (4, 4), 0)
    square = hidden("axis: square", "axis", draw(cases.axis_input, shape=(4, 4), axis=0))
    with pytest.raises(CaseConditionError, match="hidden case 'axis: square': its inputs must "
                                                 "guarantee an axis whose length differs"):
        draw_inputs(square, 3)


def test_a_global_maximum_kills_every_stability_row_but_the_top_ones_on_every_draw():
    # (slices along the case's axis; a 1-D input has one row, which a global maximum keeps)
    for problem in ("softmax", "scaled_dot_product_attention"):
        for seed in SEEDS:
            for case in PROBLEMS[problem].cases(seed):
                if case.category != "stability":
                    continue
                args = case.calls[0][0]
                if problem == "softmax":
                    x, axis = args[0], (args[1] if len(args) > 1 else -1)
                else:  # the scores, blocked ones at -inf
                    x, axis = args[0] @ np.swapaxes(args[1], -1, -2), -1
                    if len(args) > 3:
                        x = np.where(args[3], x, -np.inf)
                x = np.asarray(x, dtype=np.float64)
                naive = conditions.naive_exp_outcomes(x, axis)
                shifted = conditions.naive_exp_outcomes(x - x.max(), axis)
                assert "overflow" in naive and "unclear" not in naive, (case.name, seed)
                # one row only (1-D input): the global maximum is that row's, which is right
                killed = {"finite"} if x.ndim == 1 else {"finite", "underflow"}
                assert set(shifted.ravel()) == killed, (case.name, seed)


def test_derangements_move_every_position():
    rng = np.random.default_rng(1)
    for n in (2, 3, 7):
        for _ in range(200):
            p = conditions.derangement(rng, n)
            assert sorted(p.tolist()) == list(range(n))
            assert (p != np.arange(n)).all()
    with pytest.raises(ValueError):
        conditions.derangement(rng, 1)


def test_spaced_values_keep_their_distance_and_span_the_range():
    rng = np.random.default_rng(2)
    for _ in range(200):
        values = conditions.spaced(rng, 5, -2.0, 2.0, 0.5)
        assert conditions.min_gap(values) >= 0.5
        assert values.min() == -2.0 and values.max() == 2.0
    with pytest.raises(ValueError):
        conditions.spaced(rng, 5, 0.0, 1.0, 0.5)


def test_mixed_masks_allow_and_block_in_every_row_and_column():
    rng = np.random.default_rng(3)
    for shape in ((3, 4, 6), (2, 1, 4, 5), (6, 6), (2, 3)):
        if shape[-1] < 3:
            with pytest.raises(ValueError):
                conditions.mixed_mask(rng, shape)
            continue
        for _ in range(100):
            mask = conditions.mixed_mask(rng, shape)
            assert mask.shape == shape and mask.dtype == np.bool_
            assert (mask.any(-1) & ~mask.all(-1)).all()
            assert (mask.any(-2) & ~mask.all(-2)).all()


def test_revealing_values_show_any_change_of_the_weights():
    rng = np.random.default_rng(4)
    V = conditions.revealing(rng, 3, 5, 7)
    assert V.shape == (3, 5, 7)
    assert conditions.smallest_singular_value(V) >= 1 - 1e-9
    delta = rng.standard_normal((3, 1, 5))
    assert (np.linalg.norm(delta @ V, axis=-1) >= np.linalg.norm(delta, axis=-1) - 1e-9).all()


def test_naive_exp_outcomes_name_overflow_underflow_and_the_edges_between():
    x = np.array([[800.0, 0.0], [-800.0, -900.0], [1.0, 2.0], [705.0, 0.0], [-740.0, -741.0]])
    assert conditions.naive_exp_outcomes(x).tolist() == [
        "overflow", "underflow", "finite", "unclear", "unclear"]
    assert conditions.naive_exp_outcomes(np.array([[100.0, 0.0]]), dtype=np.float32).tolist() \
        == ["overflow"]


def test_inference_cases_drawn_without_their_condition_fail_loudly():
    gqa = import_module("grader.problems.builtin.grouped_query_attention.cases")
    mqa = hidden("groups: H = 4, G = 1 (1 < G < H)", "groups",
                 draw(gqa.grouped, H=4, G=1, Lq=3, Lk=4, d_v=4))
    with pytest.raises(CaseConditionError, match="1 < G < H"):
        draw_inputs(mqa, 0, gqa.named_sizes)
    window = import_module("grader.problems.builtin.sliding_window_attention.cases")
    short = hidden("long window: window >= L", "long window",
                   draw(window.local, L=8, window=5))
    with pytest.raises(CaseConditionError, match="window >= L"):
        draw_inputs(short, 0, window.named_window)
    rotary = import_module("grader.problems.builtin.rotary_embedding.cases")
    with pytest.raises(CaseConditionError, match="an even d of at least 6"):
        rotary.default_positions(np.random.default_rng(0), d=(4, 4))
