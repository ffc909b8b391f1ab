"""What each sample submission of ``causal_mask`` must get
(:mod:`grader.problems.samples`)."""
from __future__ import annotations

from grader.problems.samples import some, whole

EXPECTED: dict[str, tuple[str, object]] = {
    "bug_mask_inverted": ("mask_inverted", whole("values", "edge cases", "dtypes")),
    "bug_diagonal_masked": ("diagonal_masked", whole("values", "edge cases", "dtypes")),
    "bug_off_by_one_future": ("off_by_one_future", some("values", "edge cases")),
    "bug_transposed": ("transposed", some("values", "edge cases")),
    "bug_additive_mask": ("additive_mask", whole("shapes", "values", "edge cases", "dtypes")),
    "bug_all_true": ("all_true", some("values", "edge cases")),
}
