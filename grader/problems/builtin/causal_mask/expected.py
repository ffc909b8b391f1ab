"""What each sample submission of ``causal_mask`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_mask_inverted": ("mask_inverted", whole("values", "edge cases", "dtypes")),
    "bug_diagonal_masked": ("diagonal_masked", whole("values", "edge cases", "dtypes")),
    "bug_off_by_one_future": ("off_by_one_future", some("values", "edge cases")),
    "bug_transposed": ("transposed", some("values", "edge cases")),
    # the shape tests accept -inf entries (a blocked position), as they accept -1e10
    "bug_additive_mask": ("additive_mask", whole("values", "edge cases", "dtypes")),
    "bug_all_true": ("all_true", some("values", "edge cases")),
    # all False: every value test fails (n = 1 too), so the dtype test is not credited either
    "bug_all_blocked": ("all_blocked", whole("values", "edge cases", "dtypes")),
    "bug_leading_axis": ("leading_axis", whole("shapes", "values", "edge cases", "dtypes")),
    # (1 - np.tri(n)) * -1e10: the same mistake as the -inf additive mask, the same score
    "bug_additive_large_negative": ("additive_mask", whole("values", "edge cases", "dtypes")),
}
