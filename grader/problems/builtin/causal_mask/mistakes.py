"""The mistakes ``causal_mask`` is checked for: attention-bugs.md entries 11 (polarity inverted),
12 (diagonal masked), 13 (off by one the other way), 15 (nothing masked), plus the transposed
(upper-triangular) mask, an additive float mask and a mask that blocks every position."""
from __future__ import annotations

import numpy as np

from grader.problems.spec import mistake


def buggy_causal_mask(n, *, k=0, upper=False, additive=None, everything=False,
                      nothing=False, leading_axis=False):
    """The causal mask with optional mistakes: ``k`` moves the diagonal (``np.tril(..., k)``),
    ``upper`` takes the upper triangle (``np.triu(..., k)``), ``additive`` returns 0 where allowed
    and this number where blocked (a float mask), ``everything`` allows every position,
    ``nothing`` blocks every position (all False), ``leading_axis`` returns shape (1, n, n)."""
    ones = np.ones((n, n), dtype=bool)
    mask = ones if everything else (np.triu(ones, k=k) if upper else np.tril(ones, k=k))
    mask = ~ones if nothing else mask
    mask = mask if additive is None else np.where(mask, 0.0, additive)
    return mask[None] if leading_axis else mask


MISTAKES = (
    mistake("mask_inverted", "The polarity is inverted: True must mark the positions a query MAY "
            "attend to (j <= i), not the blocked future ones.", {"upper": True, "k": 1},
            bug="11"),
    mistake("diagonal_masked", "The diagonal is blocked too, so a token cannot attend to itself "
            "(and the first row has nothing to attend to): use np.tril(..., k=0).", {"k": -1},
            bug="12"),
    mistake("off_by_one_future", "Each token also sees the next one (the mask is off by one into "
            "the future): use np.tril(np.ones((n, n), dtype=bool)) with k=0.", {"k": 1},
            bug="13"),
    mistake("transposed", "The mask is transposed (True on and above the diagonal): rows are "
            "queries and columns keys, so query i may attend to keys j <= i.", {"upper": True},
            bug="11"),
    mistake("additive_mask", "This returns an additive float mask (0 / -inf or a large negative "
            "number) instead of a boolean one: return True where attending is allowed.",
            {"additive": -np.inf}),
    mistake("leading_axis", "The mask has an extra leading axis, shape (1, n, n): return the "
            "(n, n) mask; attention broadcasts it over batch and head axes itself.",
            {"leading_axis": True}),
    mistake("all_true", "Every position is allowed, so nothing is masked: block keys j > i (above "
            "the diagonal).", {"everything": True}, bug="15"),
    mistake("all_blocked", "Every position is blocked, so no query may attend to any key (not "
            "even itself: softmax over a row with nothing allowed is NaN): allow keys j <= i, on "
            "and below the diagonal.", {"nothing": True}),
)
