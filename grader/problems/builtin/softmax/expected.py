"""What each sample submission of ``softmax`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import Where, some, whole

EXPECTED: dict[str, tuple[str, object]] = {
    # the axis cases and the stability case on axis=0 (the inputs test, on axis=0 too, passes)
    "bug_ignores_axis": ("ignores_axis", Where(lambda t: "axis" in t, exclude=("inputs",))),
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
    # written for (batch, classes): right wherever axis 1 is the requested axis (every 1-D
    # input, which has no axis 1, fails: one in each category)
    "bug_fixed_axis_1": ("fixed_axis", some("shapes", "axis", "values", "stability",
                                            "properties", "dtypes", "inputs")),
    # right on one rank only: every test on the other rank fails, and nothing else
    "bug_fails_on_1d_input": ("fails_on_1d_input", Where(lambda t: "vector" in t)),
    "bug_fails_with_leading_axes": ("fails_with_leading_axes",
                                    Where(lambda t: "leading-axes" in t)),
    "bug_first_non_singleton_axis": ("first_non_singleton_axis", some(
        "axis", "values", "stability", "properties", "dtypes")),
    # one global max and one sum over every entry: right on 1-D input only
    "bug_global_max_whole_array": ("whole_array", some("axis", "values", "stability",
                                                       "properties", "dtypes")),
}
