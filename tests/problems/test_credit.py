"""The credit rule and honest diagnoses: code that does not implement the function earns at most
the shapes points, NaN output earns nothing and is described plainly, and a mistake is only named
on tests that contain its ingredient."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from grader.problems import PROBLEMS, diagnosis, scoring
from grader.problems.compile import compile_problem
from grader.problems.spec import mistake
from grader.sandbox.api import Limits
from tests.problems.problem_helpers import category_points, diagnoses, grade_source

SDPA = "scaled_dot_product_attention"
HEAD = "import numpy as np\n\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n"
ZEROS = HEAD + "    return np.zeros(Q.shape[:-1] + V.shape[-1:])\n"
ALL_NAN = HEAD + "    return np.full(Q.shape[:-1] + V.shape[-1:], np.nan)\n"


def test_zeros_of_the_right_shape_earn_the_shapes_points_and_nothing_else(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, ZEROS)
    assert result.score == pytest.approx(category_points(result, {"shapes"}), abs=1e-5)
    assert {t.tags[0] for t in result.tests if t.status == "passed"} == {"shapes"}
    withheld = [t for t in result.tests if t.tags[0] in ("inputs", "properties")
                and "not credited" in t.output]
    assert {t.name for t in withheld} == {
        "properties: permutation equivariance", "inputs: Q, K, V and mask are not modified in place",
        "properties: permutation equivariance, no batch axis",
        "inputs: Q, K, V and mask are not modified in place, no batch axis"}


SOFTMAX_UNIFORM = ("import numpy as np\n\ndef softmax(x, axis=-1):\n"
                   "    return np.ones_like(x) / x.shape[axis]\n")
UNIFORM_WEIGHTS = HEAD + "    return np.broadcast_to(V.mean(-2, keepdims=True), Q.shape[:-1] + V.shape[-1:])\n"
MHA_UNIFORM = ("import numpy as np\n\ndef multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, "
               "mask=None):\n    V = X @ W_v\n"
               "    return np.broadcast_to(V.mean(-2, keepdims=True), X.shape) @ W_o\n")


@pytest.mark.parametrize("problem, source, degenerate", [
    # 1/n everywhere passes "equal entries give a uniform row" (it scored 2.17)
    ("softmax", SOFTMAX_UNIFORM, {"properties: equal entries give a uniform row"}),
    # uniform weights pass identical keys and the sequences of length 1 (it scored 2.34)
    (SDPA, UNIFORM_WEIGHTS, {"values: identical keys give the mean of the values",
                             "properties: a sequence of length 1 returns v_1"}),
    ("multi_head_attention", MHA_UNIFORM, {"properties: a sequence of length 1"}),
])
def test_outputs_that_ignore_the_inputs_earn_the_shapes_points_at_most(fake_sandbox, problem,
                                                                       source, degenerate):
    """The degenerate tests such code passes are withheld like property tests, and unlock no
    property test either (trait ``degenerate``, grader/problems/credit.py)."""
    result = grade_source(fake_sandbox, problem, source)
    assert result.score == pytest.approx(category_points(result, {"shapes"}), abs=1e-5)
    withheld = {t.name for t in result.tests if "not credited: this test checks values that an "
                "answer ignoring the inputs also gives" in t.output}
    assert withheld == degenerate


def test_returning_q_earns_no_points_for_equivariance_or_untouched_inputs(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, HEAD + "    return Q\n")
    assert result.score == 0.0
    assert "modifies_inputs" not in diagnoses(result)


def test_all_nan_output_earns_nothing_and_is_told_where_without_a_made_up_mistake(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, ALL_NAN)
    assert result.score == 0.0
    assert diagnoses(result) == set()
    shape_test = next(t for t in result.tests if t.tags[0] == "shapes")
    assert "right shape but contains NaN or inf entries" in shape_test.output
    unmasked = next(t for t in result.tests if t.name.startswith("values: identical keys"))
    # A hidden test: how many entries and where is what the learner's values chose (withheld).
    assert "Failed: the output contains NaN or inf where the expected values are finite" \
        in unmasked.output
    assert (f"What the numbers show: your output contains NaN/inf in {len(result.tests)} of "
            f"{len(result.tests)} tests (e.g. test 'example: ") in result.output


def test_a_mistake_is_only_named_on_tests_that_have_its_ingredient(fake_sandbox):
    always = mistake("mask_anything", "a masking mistake", needs={"masked"}, implementations=(
        lambda Q, K, V, mask=None: np.zeros(Q.shape[:-1] + V.shape[-1:]),))
    only_masking = compile_problem(dataclasses.replace(PROBLEMS[SDPA].spec, mistakes=(always,),
                                                       rules=()))
    results, _, _ = scoring.evaluate(only_masking, ZEROS, fake_sandbox, Limits(), seed=5)
    named = {r.case.name for r in results if r.diagnosis_tag == "mask_anything"}
    failing_masked = {r.case.name for r in results if not r.passed and not r.uncredited
                      and "masked" in r.case.traits}  # a withheld test names no mistake
    assert named and named == failing_masked


def test_a_right_pair_in_the_wrong_order_is_named_with_the_order_to_use(fake_sandbox):
    source = HEAD + ("    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
                     "    w = np.exp(s - s.max(-1, keepdims=True))\n"
                     "    w = w / w.sum(-1, keepdims=True)\n"
                     "    return w, w @ V\n")
    result = grade_source(fake_sandbox, SDPA, source)
    # the code never reads the mask either: on masked tests both mistakes are named together
    assert diagnoses(result) == {"returns_weights_first", "mask_ignored"}
    assert "return (output, weights) in that order" in result.output
    masked = [t for t in result.tests if t.status == "failed" and "masking" in t.tags]
    assert masked and all({"diagnosis:returns_weights_first", "diagnosis:mask_ignored"}
                          <= set(t.tags) for t in masked)
    assert "rows of the weights sum to" not in result.output


def test_k_times_q_transposed_is_named_as_such_not_as_a_length_mismatch(fake_sandbox):
    source = HEAD + ("    s = K @ np.swapaxes(Q, -1, -2) / np.sqrt(Q.shape[-1])\n"
                     "    s = s if mask is None else np.where(mask, s, -np.inf)\n"
                     "    w = np.exp(s - s.max(-1, keepdims=True))\n"
                     "    return (w / w.sum(-1, keepdims=True)) @ V\n")
    result = grade_source(fake_sandbox, SDPA, source)
    assert diagnoses(result) == {"scores_transposed"}
    assert "computed as K Q^T (transposed)" in result.output


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_a_numeric_0_1_causal_mask_loses_exactly_the_dtype_test(fake_sandbox, dtype):
    source = ("import numpy as np\n\ndef causal_mask(n):\n"
              f"    return np.tril(np.ones((n, n), dtype=np.{dtype}))\n")
    result = grade_source(fake_sandbox, "causal_mask", source)
    failed = [t for t in result.tests if t.status == "failed"]
    assert [t.tags[0] for t in failed] == ["dtypes"]
    # a hidden test: the dtype the learner's code returned is not shown, the expected one is
    assert "the mask does not have the expected dtype bool" in failed[0].output
    assert dtype not in failed[0].output
    assert result.score == pytest.approx(10.0 - category_points(result, {"dtypes"}), abs=1e-5)


def test_no_finite_entry_means_no_variant_is_claimed_on_nan_outputs():
    problem = PROBLEMS[SDPA]
    case = next(c for c in problem.cases(3) if c.name.startswith("masking: causal"))
    from grader.problems.base import CaseResult
    from grader.sandbox.api import CallOutcome

    args = case.calls[0][0]
    nan = np.full(args[0].shape[:-1] + args[2].shape[-1:], np.nan)
    result = CaseResult(case, [CallOutcome("ok", value=nan)], passed=False)
    diagnosis.diagnose(problem, [result])
    assert result.diagnosis_tag == ""
    assert result.signals.startswith("your output contains NaN/inf in")


def test_a_withheld_test_says_so_and_shows_no_other_tests_diagnosis(fake_sandbox):
    """A boolean mask of the wrong polarity passes the dtype test's own check; the credit rule
    withholds it (no hidden value test passed), and it must not show the polarity diagnosis."""
    source = "import numpy as np\n\ndef causal_mask(n):\n    return np.triu(np.ones((n, n), " \
             "dtype=bool), k=1)\n"
    result = grade_source(fake_sandbox, "causal_mask", source)
    dtype_test = next(t for t in result.tests if t.tags[0] == "dtypes")
    assert dtype_test.status == "failed" and dtype_test.score == 0
    assert dtype_test.output.startswith("Failed: not credited: this test checks a property")
    assert "Diagnosis" not in dtype_test.output and "diagnosis:mask_inverted" not in dtype_test.tags
    assert result.score == 1.5  # unchanged: the shapes points only
    assert "inverted" in result.output  # the value tests keep the diagnosis
