"""A hidden case whose draw lacks a condition it requires is drawn again from its own generator
(grader/problems/draws.py, MAX_REDRAWS): a rare draw never fails a grading, and the seed still
determines the inputs.

Before the redraws, 17 of 66,600 case draws (every built-in's hidden cases on seeds 0-299) raised
CaseConditionError, and the submission drawing them failed with an internal error: layer norm's
gamma and beta closer than 0.5 everywhere (d = 5: seeds 214 and 216), the encoder block's two layer
norms with equal parameters (seeds 67, 225, 247, 281), softmax backward's near one-hot slice
(seeds 178, 224)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from grader.problems.builtin import PACKAGES
from grader.problems.builtin import layer_norm, softmax_backward, transformer_encoder_block
from grader.problems.conditions import CaseConditionError, require
from grader.problems.draws import MAX_REDRAWS, CaseGenerators, draw_inputs
from grader.problems.spec import Draw, draw, hidden


def _case(spec, name):
    return next(case for case in spec.cases if case.name == name)


LAYER_NORM_D5 = _case(layer_norm.SPEC, "values: a 3-D input, d = 5")


@pytest.mark.parametrize("seed", [214, 216])
def test_a_layer_norm_draw_without_distinct_gamma_and_beta_is_drawn_again(seed):
    with pytest.raises(CaseConditionError):  # the constructor's first draw lacks the condition
        LAYER_NORM_D5.inputs(CaseGenerators(seed)(LAYER_NORM_D5.name))
    found = draw_inputs(LAYER_NORM_D5, seed, layer_norm.SPEC.conditions)
    _, gamma, beta = found.calls[0][0][:3]
    assert np.abs(gamma - beta).max() >= 0.5
    again = draw_inputs(LAYER_NORM_D5, seed, layer_norm.SPEC.conditions)
    for first, second in zip(found.calls[0][0][:3], again.calls[0][0][:3]):
        np.testing.assert_array_equal(first, second)  # the seed determines the redraw


@pytest.mark.parametrize("seed", [0, 1, 213])
def test_a_draw_that_holds_its_conditions_is_unchanged(seed):
    first = LAYER_NORM_D5.inputs(CaseGenerators(seed)(LAYER_NORM_D5.name))
    found = draw_inputs(LAYER_NORM_D5, seed, layer_norm.SPEC.conditions)
    for a, b in zip(first.calls[0][0][:3], found.calls[0][0][:3]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("spec, name, seed", [
    (transformer_encoder_block.SPEC, "masking: padded keys, a mask per example (B, L, L) (1 head)", 67),
    (softmax_backward.SPEC, "axis: axis=1 on a 3-D input", 178),
])
def test_other_problems_rare_draws_are_drawn_again(spec, name, seed):
    case = _case(spec, name)
    with pytest.raises(CaseConditionError):
        case.inputs(CaseGenerators(seed)(case.name))
    assert draw_inputs(case, seed, spec.conditions).calls


def test_every_builtin_hidden_case_draws_on_300_seeds():
    failures = []
    for package in PACKAGES:
        spec = importlib.import_module(f"grader.problems.builtin.{package}").SPEC
        for case in spec.cases:
            if not isinstance(case.inputs, Draw):
                continue
            for seed in range(300):
                try:
                    draw_inputs(case, seed, spec.conditions)
                except CaseConditionError as exc:
                    failures.append(str(exc))
    assert failures == []


def test_a_condition_no_draw_meets_is_still_an_error_naming_the_case():
    calls = []

    def never(rng):
        calls.append(1)
        require(False, "the impossible")

    case = hidden("values: impossible", "values", draw(never))
    with pytest.raises(CaseConditionError, match="hidden case 'values: impossible': its inputs "
                                                 "must guarantee the impossible"):
        draw_inputs(case, 3)
    assert len(calls) == MAX_REDRAWS
