"""The mistakes ``causal_mask`` is checked for: attention-bugs.md entries 11 (polarity inverted),
12 (diagonal masked), 13 (off by one the other way), 15 (nothing masked), plus the transposed
(upper-triangular) mask and an additive float mask."""
from __future__ import annotations

import numpy as np

from grader.problems.spec import mistake


def _ones(n):
    return np.ones((n, n), dtype=bool)


MISTAKES = (
    mistake("mask_inverted", "The polarity is inverted: True must mark the positions a query MAY "
            "attend to (j <= i), not the blocked future ones.",
            lambda n: np.triu(_ones(n), k=1), bug="11"),
    mistake("diagonal_masked", "The diagonal is blocked too, so a token cannot attend to itself "
            "(and the first row has nothing to attend to): use np.tril(..., k=0).",
            lambda n: np.tril(_ones(n), k=-1), bug="12"),
    mistake("off_by_one_future", "Each token also sees the next one (the mask is off by one into "
            "the future): use np.tril(np.ones((n, n), dtype=bool)) with k=0.",
            lambda n: np.tril(_ones(n), k=1), bug="13"),
    mistake("transposed", "The mask is transposed (True on and above the diagonal): rows are "
            "queries and columns keys, so query i may attend to keys j <= i.",
            lambda n: np.triu(_ones(n)), bug="11"),
    mistake("additive_mask", "This returns an additive float mask (0 / -inf or a large negative "
            "number) instead of a boolean one: return True where attending is allowed.",
            lambda n: np.where(np.tril(_ones(n)), 0.0, -np.inf),
            lambda n: np.where(np.tril(_ones(n)), 0.0, -1e9)),
    mistake("all_true", "Every position is allowed, so nothing is masked: block keys j > i (above "
            "the diagonal).", lambda n: _ones(n), bug="15"),
)
