"""What each submission file under ``submissions/<problem>/`` must get.

``correct_*`` files get full marks. Every ``bug_*`` file has one entry: the diagnosis kind it must
get on every failing test, and which tests fail:
- ``Whole({...})``: exactly these categories fail, entirely (the mistake is isolated to them),
  plus, with ``also``, the cases with that trait (a masking mistake also fails the scaling case
  and the stability case with a mask, trait ``mask-elsewhere``);
- ``Some({...})``: exactly these categories have failing tests (a few of their tests may pass);
- ``Where(predicate)``: exactly the cases whose traits satisfy the predicate fail.
A file that passes no value test also loses its property and inputs tests (the credit rule,
grader/problems/credit.py), and an output with NaN/inf entries loses the shape tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Whole:
    categories: frozenset
    also: str = ""  # a case trait: the cases with it fail too (outside those categories)


@dataclass(frozen=True)
class Some:
    categories: frozenset


@dataclass(frozen=True)
class Where:
    fails: Callable[[frozenset], bool]


def whole(*c, also: str = ""):
    return Whole(frozenset(c), also)


def some(*c):
    return Some(frozenset(c))


SDPA_ALL = ("shapes", "scaling", "softmax", "values", "masking", "stability", "properties",
            "dtypes")
MHA_VALUES = ("heads", "scaling", "projections", "masking", "dtypes")
PE_VALUES = ("values", "odd d_model", "long sequences")

EXPECTED: dict[str, dict[str, tuple[str, object]]] = {
    "scaled_dot_product_attention": {
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
        "bug_softmax_query_axis": ("softmax_query_axis", some(*(set(SDPA_ALL) - {"shapes"}))),
        "bug_softmax_batch_axis": ("softmax_batch_axis", some(*(set(SDPA_ALL) - {"shapes"}),
                                                            "inputs")),
        # axis=1: correct for 2-D inputs, the query axis for 3-D, the heads axis for 4-D (NaN
        # under a mask shared by the heads: a NaN-only match that needs the other cases to agree)
        "bug_softmax_fixed_axis": ("softmax_fixed_axis",
                                   some(*(set(SDPA_ALL) - {"shapes"}))),
        # axis=2: crashes on 2-D inputs, correct for 3-D, the query axis for 4-D
        "bug_softmax_fixed_axis_2": ("softmax_fixed_axis",
                                     some("shapes", "scaling", "softmax", "masking")),
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
        # masked_fill (PyTorch) raises on every masked case, the scaling and inputs ones too
        "bug_fails_with_mask": ("fails_with_mask", Where(lambda t: "masked" in t)),
        # boolean indexing over the last axes fails only for masks with size-1 axes
        "bug_fails_with_some_masks": ("fails_with_some_masks", some("masking")),
        "bug_returns_weights_first": ("returns_weights_first", some(*SDPA_ALL)),
        "bug_returns_weights_only": ("returns_weights_only", some(*SDPA_ALL)),
        "bug_softmax_all_entries": ("softmax_all_entries",
                                    some(*(set(SDPA_ALL) - {"shapes"}), "inputs")),
        "bug_scores_transposed": ("scores_transposed", some(*SDPA_ALL)),
    },
    "softmax": {
        # the axis cases and the stability case on axis=0
        "bug_ignores_axis": ("ignores_axis", Where(lambda t: "axis" in t)),
        "bug_unstable_1d": ("not_stable", Where(lambda t: "stable-1d" in t)),
        "bug_unstable_non_last_axis": ("not_stable", Where(lambda t: "stable-axis" in t)),
        "bug_no_keepdims": ("no_keepdims", some("shapes", "axis", "values", "stability",
                                                "properties", "dtypes")),
        "bug_not_stable": ("not_stable", whole("stability")),
        "bug_global_max": ("global_max", some("stability")),
        "bug_min_subtracted": ("min_subtracted", Where(lambda t: "wide-rows" in t)),
        # each row of the wide-rows case is symmetric about its offset: max - mean = 800 > 709.8
        "bug_mean_subtracted": ("mean_subtracted", Where(lambda t: "wide-rows" in t)),
        "bug_modifies_input": ("modifies_inputs", whole("inputs")),
        # right on 1-D input only (the visible example and the hidden 1-D stability case, which
        # anchors the credit of the property and inputs tests, grader/problems/credit.py)
        "bug_whole_array": ("whole_array", some("axis", "values", "stability", "properties",
                                                "dtypes")),
    },
    "causal_mask": {
        "bug_mask_inverted": ("mask_inverted", whole("values", "edge cases", "dtypes")),
        "bug_diagonal_masked": ("diagonal_masked", whole("values", "edge cases", "dtypes")),
        "bug_off_by_one_future": ("off_by_one_future", some("values", "edge cases")),
        "bug_transposed": ("transposed", some("values", "edge cases")),
        "bug_additive_mask": ("additive_mask", whole("shapes", "values", "edge cases", "dtypes")),
        "bug_all_true": ("all_true", some("values", "edge cases")),
    },
    "multi_head_attention": {
        "bug_scale_by_sqrt_d_model": ("scale_by_sqrt_d_model", some(*MHA_VALUES)),
        "bug_scale_by_d_head": ("scale_by_d_head", some(*MHA_VALUES)),
        # int(np.sqrt(d_head)): right for d_head 1, 4; wrong for 2, 6, 7, 8
        "bug_isqrt_scale": ("scale_integer_sqrt", some("scaling", "heads", "projections",
                                                       "masking")),
        "bug_split_without_transpose": ("split_without_transpose",
                                        some(*MHA_VALUES, "properties")),
        "bug_merge_without_transpose": ("merge_without_transpose",
                                        some(*MHA_VALUES, "properties")),
        "bug_interleaved_heads": ("interleaved_heads", some(*MHA_VALUES, "properties")),
        "bug_weights_transposed": ("weights_transposed",
                                   some(*MHA_VALUES, "properties", "inputs")),
        "bug_output_projection_missing": ("output_projection_missing",
                                          some(*MHA_VALUES, "properties", "inputs")),
        "bug_values_projected_with_w_q": ("values_projected_with_w_q",
                                          some(*MHA_VALUES, "properties", "inputs")),
        "bug_mask_without_head_axis": ("mask_without_head_axis", Where(lambda t: "batch-mask" in t)),
        "bug_softmax_query_axis": ("softmax_query_axis", some(*MHA_VALUES)),
        "bug_mask_inverted": ("mask_inverted", whole("masking")),
        "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
        "bug_no_scaling": ("no_scaling", some(*MHA_VALUES)),
        "bug_split_and_merge_without_transpose": ("split_and_merge_without_transpose",
                                                  some(*MHA_VALUES, "properties")),
        "bug_mask_fill_zero": ("mask_fill_zero", whole("masking")),
        "bug_mask_after_softmax": ("mask_after_softmax", whole("masking")),
        "bug_mask_ignored": ("mask_ignored", whole("masking")),
        # masked_fill (PyTorch) raises on every masked case, the inputs one too
        "bug_fails_with_mask": ("fails_with_mask", Where(lambda t: "masked" in t)),
        # boolean indexing over the last axes fails for masks with a batch axis only
        "bug_fails_with_some_masks": ("fails_with_some_masks",
                                      Where(lambda t: "batch-mask" in t)),
        # np.expand_dims(mask, 1) fits (B, L, L) masks only (QA F10)
        "bug_fails_with_2d_mask": ("fails_with_2d_mask", Where(lambda t: "mask-2d" in t)),
        "bug_fails_with_batch_axes": ("fails_with_batch_axes",
                                      some("shapes", *MHA_VALUES, "properties", "inputs")),
        "bug_heads_merged_in_reverse": ("fails_with_several_heads",
                                        some(*MHA_VALUES, "properties")),
    },
    "positional_encoding": {
        "bug_halves_concatenated": ("halves_concatenated", some(*PE_VALUES, "properties")),
        "bug_sin_cos_swapped": ("sin_cos_swapped", some(*PE_VALUES, "properties")),
        "bug_raw_column_exponent": ("raw_column_exponent", some(*PE_VALUES, "properties")),
        "bug_cos_next_pair_exponent": ("cos_next_pair_exponent", some(*PE_VALUES, "properties")),
        "bug_base_1000": ("base_1000", whole(*PE_VALUES, "properties")),
        "bug_integer_division": ("integer_division", whole(*PE_VALUES, "properties")),
        "bug_exponent_sign_inverted": ("exponent_sign_inverted",
                                       whole(*PE_VALUES, "properties")),
        "bug_positions_from_one": ("positions_from_one", some(*PE_VALUES, "properties")),
        "bug_all_sine": ("all_sine", some(*PE_VALUES, "properties")),
        "bug_transposed": ("transposed", some(*PE_VALUES, "properties", "shapes")),
        # sin even / cos odd columns with 10000 ** (j / d_model): the cosines are off (QA F13)
        "bug_column_index_exponent": ("column_index_exponent", some(*PE_VALUES, "properties")),
        # pe[None]: (1, seq_len, d_model) fails every test, shapes included (QA F14)
        "bug_leading_batch_axis": ("leading_batch_axis", whole("shapes", *PE_VALUES,
                                                               "properties")),
        "bug_odd_d_model_crash": ("odd_d_model_crash", Where(lambda t: "odd" in t)),
    },
}
