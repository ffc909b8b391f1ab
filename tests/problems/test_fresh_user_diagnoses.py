"""Diagnoses a fresh user found wrong or misleading, each reproduced with a submission and fixed
by its kind (not by its example)."""
from __future__ import annotations

import numpy as np
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


KV = "kv_cache_decode_step"

# A running maximum over the cached scores first: np.max of an empty cache raises "zero-size
# array to reduction operation maximum which has no identity", exactly as attending over the
# old cache only (new_key_not_attended) raises on it.
_KV_MAX_OF_CACHE_FIRST = '''
import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    scale = 1.0 / np.sqrt(q.shape[-1])
    past = (q @ np.swapaxes(cache_k, -1, -2)) * scale
    m = np.maximum(past.max(axis=-1, keepdims=True), (q * k_new).sum(-1, keepdims=True) * scale)
    K = np.concatenate([cache_k, k_new], axis=-2)
    V = np.concatenate([cache_v, v_new], axis=-2)
    w = np.exp((q @ np.swapaxes(K, -1, -2)) * scale - m)
    w /= w.sum(-1, keepdims=True)
    return w @ V, K, V
'''


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_a_kv_cache_crash_on_an_empty_cache_is_named_the_empty_cache(fake_sandbox, seed):
    """Before: "the query attends over the old cache only" (a variant that raises the same
    error there), though the code attends over all T + 1 keys on every other test. A variant that
    matches only exceptions must now reproduce the values of the tests that ran too."""
    result = grade_source(fake_sandbox, KV, _KV_MAX_OF_CACHE_FIRST, seed)
    failed = [t for t in result.tests if t.status == "failed"]
    assert {t.name for t in failed} == {"example: an empty cache (T = 0)",
                                        "empty cache: T = 0, batch and heads"}
    assert diagnoses(result) == {"fails_with_empty_cache"}
    assert "fails when the cache is empty" in result.output
    assert "old cache only" not in result.output
    # the example (0.75) and the hidden test (0.75) of the empty cache are lost
    assert result.score == pytest.approx(8.5, abs=1e-6)


def test_a_kv_cache_that_attends_over_the_old_cache_only_is_still_named_so(fake_sandbox):
    result = grade_source(fake_sandbox, KV, samples.source(KV, "bug_new_key_not_attended"))
    assert diagnoses(result) == {"new_key_not_attended"}


SDPA = "scaled_dot_product_attention"


@pytest.mark.parametrize("seed", [1, 7])
def test_transposed_returned_weights_are_signalled_as_transposed(fake_sandbox, seed):
    """Before: "columns sum to 1, as if the softmax normalised the query axis" and "blocked
    positions receive weight", though the softmax and the output are right: only the returned
    weights are swapped."""
    source = samples.source(SDPA, "correct_matmul")
    assert source.rstrip().endswith("return weights @ V")
    source = source.rstrip() + ", np.swapaxes(weights, -1, -2)\n"
    result = grade_source(fake_sandbox, SDPA, source, seed)
    example = next(t for t in result.tests if t.name.startswith("example: cross-attention"))
    # Lq = 2, Lk = 3: the returned weights are (3, 2)
    assert ("What the numbers show: your output is the transpose of the weights you return "
            "times V: the returned weights are transposed, shape (..., 3, 2) with one row per "
            "key, where (..., 2, 3) is expected") in example.output
    signalled = [t for t in result.tests if "What the numbers show" in t.output]
    assert signalled and all("transposed" in t.output and "query axis" not in t.output
                             and "blocked positions" not in t.output for t in signalled)


def test_the_query_axis_softmax_keeps_its_diagnosis(fake_sandbox):
    result = grade_source(fake_sandbox, SDPA, samples.source(SDPA, "bug_softmax_query_axis"))
    assert "softmax_query_axis" in diagnoses(result)


BLOCK = "transformer_encoder_block"


@pytest.mark.parametrize("change, named", [
    ('    params["W_q"][...] = 0.0\n', " params['W_q']"),  # an entry's array changed
    ('    params["W_q"] = params["W_q"].copy()\n    params["W_q"][0, 0] += 1.0\n',
     " params['W_q']"),  # an entry rebound to another array
    ('    params["cache"] = out\n', " params (entries added or removed)"),
    ('    del params["b_2"]\n', "s params (entries added or removed), params['b_2']"),
    ('    params["num_heads"] += 1\n', " params['num_heads']"),
])
def test_a_block_that_changes_its_params_dict_fails_the_inputs_test(fake_sandbox, change, named):
    """Before: only the array arguments (x, the mask) came back from the call, so a block that
    stored into or changed its params dict passed the inputs test. The output is right (the change
    comes after it is computed): only the inputs test (0.5 of 10) is lost."""
    source = samples.source(BLOCK, "correct_einsum")
    body = "    return h + np.einsum(\"...if,fd->...id\", hidden, p[\"W_2\"]) + p[\"b_2\"]\n"
    assert source.endswith(body)
    source = source[:-len(body)] + body.replace("    return ", "    out = ") + change + \
        "    return out\n"
    result = grade_source(fake_sandbox, BLOCK, source)
    failed = [t for t in result.tests if t.status == "failed"]
    assert [t.name for t in failed] == ["inputs: x, params and the mask are not modified in place"]
    assert f"your function modified its input{named} in place" in failed[0].output
    assert diagnoses(result) == {"modifies_inputs"}
    assert result.score == pytest.approx(9.5, abs=1e-6)


def test_the_arguments_after_a_call_flatten_a_dict_by_its_keys_before_the_call():
    from grader.problems.inputs import argument_names, arguments_after

    x = np.arange(3.0)
    params = {"b": np.ones(2), "a": 2}
    keys = [None, ["a", "b"]]
    assert argument_names((x, params), ("x", "params")) == [
        "x", "params (entries added or removed)", "params['a']", "params['b']"]
    flat = arguments_after((x, params), keys)
    assert [np.asarray(v).tolist() for v in flat] == [[0.0, 1.0, 2.0], 2, 2, [1.0, 1.0]]
    del params["a"]
    params["c"] = np.zeros(1)
    after = arguments_after((x, params), keys)
    # still two entries (one gone, one added), "a" gone shows as an empty array
    assert [np.asarray(v).tolist() for v in after] == [[0.0, 1.0, 2.0], 2, [], [1.0, 1.0]]
