"""What each sample submission of ``softmax_backward`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

VALUES = ("values", "axis", "dtypes")
# wrong everywhere, the zero-sum property too: no value test passes, the inputs test is withheld
EVERYWHERE = whole(*VALUES, "properties", "inputs")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_diagonal_jacobian": ("diagonal_jacobian", EVERYWHERE),
    "bug_sum_of_dy_only": ("sum_of_dy_only", EVERYWHERE),
    # dy - s is still 0 for a constant dy, but its slices do not sum to 0
    "bug_missing_y_factor": ("missing_y_factor", some(*VALUES, "properties")),
    # a sum over the whole array is right on the 1-D input only (one slice)
    "bug_whole_array_sum": ("whole_array_sum", some(*VALUES, "properties")),
    # both properties hold for -dx and for the gradient of softmax(y)
    "bug_sign_flipped": ("sign_flipped", whole(*VALUES)),
    "bug_softmax_reapplied": ("softmax_reapplied", whole(*VALUES)),
    # raises on 2-D and 3-D inputs (never square); right on the 1-D input only
    "bug_no_keepdims": ("no_keepdims", some("shapes", *VALUES, "properties", "inputs")),
    "bug_ignores_axis": ("ignores_axis", whole("axis")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
