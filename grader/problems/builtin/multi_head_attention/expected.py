"""What each sample submission of ``multi_head_attention`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import Where, some, whole

MHA_VALUES = ("heads", "scaling", "projections", "masking", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
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
    # only the degenerate sequence of length 1 passes: no credit for properties or inputs
    "bug_softmax_query_axis": ("softmax_query_axis", some(*MHA_VALUES, "properties", "inputs")),
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
    "bug_fails_without_batch_axis": ("fails_without_batch_axis",
                                     Where(lambda t: "unbatched" in t)),
    "bug_fails_with_batch_axes": ("fails_with_batch_axes",
                                  some("shapes", *MHA_VALUES, "properties", "inputs")),
    "bug_heads_merged_in_reverse": ("fails_with_several_heads",
                                    some(*MHA_VALUES, "properties")),
    "bug_no_projections": ("no_projections", some(
        "projections", "heads", "scaling", "masking", "properties", "dtypes", "inputs")),
    # right with a causal mask only
    "bug_always_causal": ("always_causal", some(
        "projections", "heads", "scaling", "masking", "properties", "dtypes")),
    "bug_residual_added": ("residual_added", some(
        "projections", "heads", "scaling", "masking", "properties", "dtypes", "inputs")),
}
