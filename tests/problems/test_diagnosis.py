"""Unit behaviour of the comparison and diagnosis helpers."""
from __future__ import annotations

import numpy as np

from grader.problems import PROBLEMS
from grader.problems.base import CaseResult
from grader.problems.compare import matches, mismatch, split_return
from grader.problems.diagnosis import explains
from grader.sandbox.api import CallOutcome


def _scaling_case():
    problem = PROBLEMS["scaled_dot_product_attention"]
    case = next(c for c in problem.cases(4) if c.category == "scaling" and not c.visible)
    variant = {v.tag: v for v in problem.variants}["scale_by_d_k"]
    return case, variant


def test_a_variant_explains_only_outputs_it_reproduces():
    case, variant = _scaling_case()
    args, kwargs = case.calls[0]
    buggy_out, _ = PROBLEMS["scaled_dot_product_attention"].implementations[
        variant.implementation](*args, **kwargs)
    hit = CaseResult(case, [CallOutcome("ok", value=buggy_out)], passed=False)
    off = CaseResult(case, [CallOutcome("ok", value=buggy_out + 0.01)], passed=False)
    nan = CaseResult(case, [CallOutcome("ok", value=np.full_like(buggy_out, np.nan))],
                     passed=False)
    problem = PROBLEMS["scaled_dot_product_attention"]
    assert explains(problem, variant, hit)
    assert not explains(problem, variant, off)
    assert not explains(problem, variant, nan)


def test_a_crash_is_explained_only_by_the_same_exception_and_message():
    case, variant = _scaling_case()
    other = CaseResult(case, [CallOutcome("exception", error="ValueError: something else")],
                       passed=False, crashed=True)
    assert not explains(PROBLEMS["scaled_dot_product_attention"], variant, other)


def test_mismatch_reports_index_size_and_count_but_no_values():
    expected = np.zeros((2, 3))
    got = expected.copy()
    got[1, 2] = 0.25
    message = mismatch(got, expected)
    assert message == ("the output differs from the expected values: largest difference 0.25 at "
                       "index (1, 2); 1 of 6 checked entries outside tolerance "
                       "(rtol 0.0001, atol 1e-05)")


def test_mismatch_names_nan_and_inf_and_ignores_unchecked_rows():
    expected = np.zeros((2, 3))
    got = np.array([[np.nan, 0.0, np.inf], [0.0, 0.0, 0.0]])
    assert "1 NaN and 1 inf in 2 of 6 checked entries (first at index (0, 0))" in mismatch(
        got, expected)
    assert mismatch(got, expected, rows=np.array([False, True])) is None


def test_mismatch_tolerance_accepts_float32_rounding_and_not_a_one_percent_error():
    expected = np.random.default_rng(0).standard_normal((4, 5))
    assert mismatch(expected.astype(np.float32), expected) is None
    assert mismatch(expected * 1.01, expected) is not None


def test_split_return_accepts_output_or_output_and_weights():
    out, weights = np.zeros((2, 3)), np.ones((2, 4))
    assert split_return(out)[1] is None
    assert split_return((out, weights))[1] is weights
    assert split_return([out, weights])[1] is weights
    assert split_return([[1.0, 2.0], [3.0, 4.0]])[1] is None


def test_matches_treats_nan_as_equal_to_nan():
    assert matches(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not matches(np.array([np.nan, 1.0]), np.array([0.0, 1.0]))


def test_matches_gives_the_verdict_of_allclose_with_nan_equal_on_special_values():
    from grader.problems.compare import ATOL, RTOL

    rng = np.random.default_rng(0)
    special = [0.0, 1.0, -1.0, 1e-6, 1e-5, np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324]
    for _ in range(5000):
        n = int(rng.integers(1, 5))
        a = rng.choice(special, n) * rng.choice([1.0, 1 + 1e-5, 1 + 1.1e-4, 1 + 1e-3], n)
        b = a * rng.choice([1.0, 1 + 1e-5, 1 - 1e-4, 1 + 2e-4], n) if rng.random() < 0.5 \
            else rng.choice(special, n)
        with np.errstate(all="ignore"):
            expected = bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))
        assert matches(a, b) == expected, (a, b)


def test_the_nan_signal_counts_only_the_rows_the_contract_checks():
    from grader.problems import reference
    from grader.problems.signals import output_signals

    problem = PROBLEMS["scaled_dot_product_attention"]
    case = next(c for c in problem.cases(4) if c.name.startswith("masking: rows with every key"))
    rows = case.rows_for(0)
    assert rows is not None and not rows.all()
    out, _ = reference.attention(*case.calls[0][0])
    wrong = np.where(rows[..., None], out * 1.5, np.nan)  # NaN only in the unchecked rows
    assert output_signals(wrong) == [f"{(~rows).mean():.0%} of the output entries are NaN or inf"]
    assert output_signals(wrong, rows) == []
    assert "NaN" not in (problem.describe(case, [wrong]) or "")
    wrong[tuple(np.argwhere(rows)[0])] = np.inf  # one checked row non-finite: counted among checked ones
    assert output_signals(wrong, rows) == [f"{1 / rows.sum():.0%} of the output entries are NaN "
                                           "or inf"]


def test_an_all_nan_match_is_claimed_only_when_the_other_cases_agree(fake_sandbox):
    """A softmax over axis 1 gives NaN everywhere under a (B, 1, Lq, Lk) mask, as
    ``(1 - mask) * -inf`` does; without a variant for the fixed axis, that NaN-for-NaN match must
    not name the mask mistake (the mask variant disagrees with the learner on the finite cases),
    while a real ``(1 - mask) * -inf`` submission, all NaN on every masked case, keeps it."""
    from dataclasses import replace

    from tests.problems.problem_helpers import grade_source, submission

    problem = PROBLEMS["scaled_dot_product_attention"]
    without = replace(problem, variants=[v for v in problem.variants
                                         if v.tag != "softmax_fixed_axis"])
    source = submission(problem.id, "bug_softmax_fixed_axis")
    from grader.problems import scoring
    from grader.sandbox.api import Limits

    result = scoring.grade(without, "item", 10, source, fake_sandbox, Limits(), 7)
    tags = {tag for t in result.tests for tag in t.tags if tag.startswith("diagnosis:")}
    assert "diagnosis:mask_times_neg_inf" not in tags
    nan_only = [t for t in result.tests  # visible: "... NaN in N of M", hidden: no counts
                if ("NaN in" in t.output or "NaN or inf where" in t.output)
                and "of the output" not in t.output]
    assert nan_only and all(not any(tag.startswith("diagnosis:") for tag in t.tags)
                            for t in nan_only if "shared by the heads" in t.name)
    times_neg_inf = grade_source(fake_sandbox, problem.id,
                                 submission(problem.id, "bug_mask_times_neg_inf"))
    failing = [t for t in times_neg_inf.tests if t.status == "failed"]
    assert failing and all("diagnosis:mask_times_neg_inf" in t.tags for t in failing)
