"""What each sample submission of ``grouped_query_attention`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

#: The categories whose tests have 1 < G < H (the group mistakes change their values).
GROUPED = ("groups", "scaling", "masking", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    # h % G equals h // (H / G) when G = 1 or G = H: the group sizes cases pass
    "bug_interleaved_groups": ("interleaved_groups", whole(*GROUPED)),
    # right for G = 1 only (the G = 1 example and hidden test pass)
    "bug_first_group_only": ("first_group_only", some("group sizes", *GROUPED)),
    # d_k = 1 in the groups and group sizes cases, 4 in the masking, dtypes and inputs ones (the
    # inputs test passes: it checks the arguments, and hidden values tests pass)
    "bug_no_scaling": ("no_scaling", whole("scaling", "masking", "dtypes")),
    # sqrt(H d_k) differs from sqrt(d_k) wherever H > 1; the head-to-group example (one key
    # per group) is scale-free; no hidden values test passes, so the inputs test is not credited
    "bug_scale_by_sqrt_d_model": ("scale_by_sqrt_d_model",
                                  some("group sizes", "inputs", *GROUPED)),
    # sqrt(d_v) differs from sqrt(d_k) wherever d_v != d_k (everywhere but the inputs test,
    # which is not credited: no hidden values test passes)
    "bug_scale_by_sqrt_d_v": ("scale_by_sqrt_d_v", some("group sizes", "inputs", *GROUPED)),
    "bug_softmax_query_axis": ("softmax_query_axis", some("group sizes", "inputs", *GROUPED)),
    "bug_mask_ignored": ("mask_ignored", whole("masking")),
    "bug_mask_inverted": ("mask_inverted", whole("masking")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
    "bug_fails_with_batch_axes": ("fails_with_batch_axes", some("shapes", "group sizes",
                                                                *GROUPED)),
}
