"""What each sample submission of ``attention_backward`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import whole

VALUES = ("gradients", "scaling", "masking", "properties", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    # one-hot weights (the stability case) have a zero diagonal P (1 - P) too
    "bug_softmax_jacobian_diagonal": ("softmax_jacobian_diagonal", whole(*VALUES)),
    # wrong everywhere: no value test passes, so the inputs test is withheld
    "bug_row_sum_missing": ("row_sum_missing", whole(*VALUES, "stability", "inputs")),
    "bug_row_sum_query_axis": ("row_sum_query_axis", whole(*VALUES, "stability", "inputs")),
    # outside the scaling cases d_k = 1, where every scale is 1
    "bug_dq_missing_scale": ("dq_missing_scale", whole("scaling")),
    "bug_dk_missing_scale": ("dk_missing_scale", whole("scaling")),
    "bug_scale_by_d_k": ("scale_by_d_k", whole("scaling")),
    "bug_dv_unmasked_weights": ("dv_unmasked_weights", whole("masking")),
    "bug_mask_ignored": ("mask_ignored", whole("masking")),
    "bug_softmax_not_stable": ("softmax_not_stable", whole("stability")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
