"""What each sample submission of ``scaled_dot_product_attention`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import Where, some, whole

SDPA_ALL = ("shapes", "scaling", "softmax", "values", "masking", "stability", "properties",
            "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_scale_by_d_k": ("scale_by_d_k", whole("scaling")),
    "bug_isqrt_scale": ("scale_integer_sqrt", whole("scaling")),
    # the max is subtracted only without a mask: the one stability case with a mask fails
    "bug_unstable_masked_branch": ("softmax_not_stable",
                                   Where(lambda t: "mask-elsewhere" in t
                                         and "scaled" not in t)),
    "bug_no_scaling": ("no_scaling", whole("scaling")),
    # it scales in the masked branch only: every scaling case but the masked one fails
    "bug_scales_only_with_a_mask": ("no_scaling",
                                    Where(lambda t: "scaled" in t and "scaled-mask" not in t)),
    "bug_no_scaling_with_a_mask": ("no_scaling_with_mask",
                                   Where(lambda t: "scaled-mask" in t)),
    "bug_scale_multiplied": ("scale_multiplied", whole("scaling")),
    # no non-degenerate value test passes (identical keys no longer unlock credit): inputs too
    "bug_softmax_query_axis": ("softmax_query_axis", some(*(set(SDPA_ALL) - {"shapes"}),
                                                        "inputs")),
    "bug_softmax_batch_axis": ("softmax_batch_axis", some(*(set(SDPA_ALL) - {"shapes"}),
                                                        "inputs")),
    # axis=1: correct for 2-D inputs, the query axis for 3-D, the heads axis for 4-D (NaN
    # under a mask shared by the heads: a NaN-only match that needs the other cases to agree)
    "bug_softmax_fixed_axis": ("softmax_fixed_axis",
                               some(*(set(SDPA_ALL) - {"shapes"}))),
    # axis=2: crashes on 2-D inputs, correct for 3-D, the query axis for 4-D
    # axis=2 crashes on every test without a batch axis, one in each category
    "bug_softmax_fixed_axis_2": ("softmax_fixed_axis", some(*SDPA_ALL, "inputs")),
    "bug_softmax_no_keepdims": ("softmax_no_keepdims", some(*SDPA_ALL, "inputs")),
    "bug_softmax_not_stable": ("softmax_not_stable", whole("stability")),
    "bug_softmax_global_max": ("softmax_global_max", whole("stability")),
    "bug_mask_after_softmax": ("mask_after_softmax", whole("masking", also="mask-elsewhere")),
    "bug_mask_fill_zero": ("mask_fill_zero", whole("masking", also="mask-elsewhere")),
    "bug_mask_multiply": ("mask_fill_zero", whole("masking", also="mask-elsewhere")),
    "bug_mask_added_as_float": ("mask_added_as_float", whole("masking", also="mask-elsewhere")),
    "bug_mask_inverted": ("mask_inverted", whole("masking", also="mask-elsewhere")),
    "bug_mask_times_neg_inf": ("mask_times_neg_inf", whole("masking", also="mask-elsewhere")),
    "bug_mask_ignored": ("mask_ignored", whole("masking", also="mask-elsewhere")),
    "bug_mask_on_query_axis": ("mask_on_query_axis", whole("masking", also="mask-elsewhere")),
    "bug_blends_keys": ("blends_keys", some(*SDPA_ALL, "inputs")),
    "bug_k_transpose_all_axes": ("k_transpose_all_axes", some(*SDPA_ALL, "inputs")),
    "bug_assumes_lq_equals_lk": ("assumes_lq_equals_lk",
                                 Where(lambda t: "cross" in t and "masked" not in t)),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
    # d_k = Q.shape[1]: right without a batch axis, the query length (or the heads) with one
    "bug_scale_by_query_length": ("scale_by_query_length", some("scaling", "softmax",
                                                                "masking", "dtypes")),
    "bug_scale_by_sqrt_d_v": ("scale_by_sqrt_d_v", some("scaling", "masking", "softmax",
                                                        "dtypes")),
    "bug_fails_with_batch_axes": ("fails_with_batch_axes", some(*SDPA_ALL, "inputs")),
    # a loop over Q.shape[0]: every test without a batch axis crashes, and only those
    "bug_fails_without_batch_axis": ("fails_without_batch_axis", Where(lambda t: "unbatched" in t)),
    # masked_fill (PyTorch) raises on every masked case, the scaling and inputs ones too
    "bug_fails_with_mask": ("fails_with_mask", Where(lambda t: "masked" in t)),
    # boolean indexing over the last axes fails only for masks with size-1 axes
    "bug_fails_with_some_masks": ("fails_with_some_masks", some("masking")),
    "bug_returns_weights_first": ("returns_weights_first", some(*SDPA_ALL)),
    "bug_returns_weights_only": ("returns_weights_only", some(*SDPA_ALL)),
    "bug_softmax_all_entries": ("softmax_all_entries",
                                some(*(set(SDPA_ALL) - {"shapes"}), "inputs")),
    # its one passing value test had identical keys (degenerate): inputs is withheld too
    "bug_scores_transposed": ("scores_transposed", some(*SDPA_ALL, "inputs")),
    # Q @ K raises unless Lk == d_k, and is wrong when it runs: every test fails
    "bug_key_not_transposed": ("key_not_transposed", some(
        "shapes", "values", "scaling", "softmax", "masking", "stability", "properties",
        "dtypes", "inputs")),
    "bug_output_from_scores": ("output_from_scores", some(
        "values", "scaling", "softmax", "masking", "stability", "properties", "dtypes",
        "inputs")),
    # (weights, scores @ V): two mistakes at once, both named on every failing test
    "bug_weights_and_raw_output": (("returns_weights_first", "output_from_scores"), some(
        "shapes", "values", "scaling", "softmax", "masking", "stability", "properties",
        "dtypes", "inputs")),
}
