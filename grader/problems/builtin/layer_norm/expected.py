"""What each sample submission of ``layer_norm`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

VALUES = ("values", "eps", "properties", "dtypes")
# wrong on every row: no value test passes, so the inputs test is withheld
EVERYWHERE = whole(*VALUES, "inputs")

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_unbiased_variance": ("unbiased_variance", EVERYWHERE),
    "bug_gamma_beta_swapped": ("gamma_beta_swapped", EVERYWHERE),
    "bug_variance_not_centred": ("variance_not_centred", EVERYWHERE),
    "bug_not_centred": ("not_centred", EVERYWHERE),
    # the variances of the other cases are 900 or more, where eps changes nothing
    "bug_eps_outside_sqrt": ("eps_outside_sqrt", some("eps")),
    "bug_eps_ignored": ("eps_ignored", some("eps")),
    "bug_no_eps": ("no_eps", whole("eps")),
    # right on the one-vector case only (its one row is the whole array, and axis 0)
    "bug_batch_axis": ("batch_axis", some(*VALUES)),
    "bug_whole_array": ("whole_array", some(*VALUES)),
    # raises on every input with a leading axis (never square); right on one vector
    "bug_no_keepdims": ("no_keepdims", some("shapes", *VALUES, "inputs")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
