"""Diagnoses a fresh user found wrong or misleading, each reproduced with a submission and fixed
by its kind (not by its example)."""
from __future__ import annotations

import pytest

from grader.problems import PROBLEMS, samples
from tests.problems.problem_helpers import diagnoses, grade_source

GQA = "grouped_query_attention"


def _gqa_scaled_by(expression: str) -> str:
    source = samples.source(GQA, "correct_matmul")
    assert "/ np.sqrt(Q.shape[-1])" in source
    return source.replace("/ np.sqrt(Q.shape[-1])", expression)


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_a_gqa_scale_by_sqrt_d_v_is_named_d_v_not_the_model_width(fake_sandbox, seed):
    """Before: named "sqrt(H * d_k) (the model width)" on the 3 tests whose draw has
    d_v = H * d_k (H = 4, d_k = 1, d_v = 4: the only ones sqrt(H d_k) explains), the others left
    unnamed."""
    result = grade_source(fake_sandbox, GQA, _gqa_scaled_by("/ np.sqrt(V.shape[-1])"), seed)
    failing = [t for t in result.tests if t.status == "failed"
               and not t.output.startswith("Failed: not credited")]
    assert failing and all("diagnosis:scale_by_sqrt_d_v" in t.tags for t in failing)
    assert diagnoses(result) == {"scale_by_sqrt_d_v"}
    assert "model width" not in result.output
    # every test but the scale-free head-to-group example (1.0) and the shapes test (1.0) fails
    assert result.score == pytest.approx(2.0, abs=1e-6)


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_unscaled_gqa_scores_lose_every_test_with_d_k_above_one(fake_sandbox, seed):
    """Before: 8.5 of 10 (d_k = 1 everywhere but the one scaling test, where 1 / sqrt(d_k) = 1
    hides the missing scale). Now the masking (1.5), dtypes (0.75) and inputs cases have d_k = 4:
    10 - 1.5 (scaling) - 1.5 (masking) - 0.75 (dtypes) = 6.25; the inputs test checks the
    arguments only and passes."""
    result = grade_source(fake_sandbox, GQA, _gqa_scaled_by(""), seed)
    assert {t.tags[0] for t in result.tests if t.status == "failed"} == {
        "scaling", "masking", "dtypes"}
    assert result.score == pytest.approx(6.25, abs=1e-6)
    assert diagnoses(result) == {"no_scaling"}


def test_gqa_masking_and_dtypes_cases_have_d_k_above_one():
    for case in PROBLEMS[GQA].cases(0):
        if case.category in ("scaling", "masking", "dtypes", "inputs"):
            assert case.calls[0][0][0].shape[-1] > 1, case.name
