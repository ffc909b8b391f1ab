"""What each sample submission of ``sliding_window_attention`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import whole

#: The categories with 1 < window < L - 1 (every band mistake changes their values).
BAND = ("band", "scaling", "dtypes")

EXPECTED: dict[str, tuple[str, object]] = {
    # window >= L: one key more or less, or no window at all, is still causal attention there
    "bug_window_one_too_wide": ("window_one_too_wide", whole("window 1", *BAND)),
    "bug_window_one_too_narrow": ("window_one_too_narrow", whole("window 1", *BAND)),
    "bug_window_ignored": ("window_ignored", whole("window 1", *BAND)),
    # with window 1, |i - j| < 1 and i <= j < i + 1 are the token alone, right
    "bug_window_two_sided": ("window_two_sided", whole("long window", *BAND)),
    "bug_window_above_diagonal": ("window_above_diagonal", whole("long window", *BAND)),
    # a key axis softmax of one key is 1 either way: window 1 passes
    "bug_softmax_query_axis": ("softmax_query_axis", whole("long window", *BAND)),
    # rows sum to less than 1 everywhere (window 1: the token's weight before masking is < 1),
    # so no values test passes and the inputs test is not credited
    "bug_mask_after_softmax": ("mask_after_softmax", whole("window 1", "long window", "inputs",
                                                           *BAND)),
    "bug_no_scaling": ("no_scaling", whole("scaling")),
    "bug_modifies_inputs": ("modifies_inputs", whole("inputs")),
}
