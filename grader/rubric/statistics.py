"""Agreement statistics between two raters (the rubric and an instructor): Pearson's r and
Cohen's quadratic weighted kappa. Used by the trial report (``agreement.py``) and by calibration
(``calibration.py``); kept apart so neither imports the other."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation of two equal-length sequences; ``None`` when undefined (n < 2 or a
    constant side)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"pearson: lengths differ ({a.size} vs {b.size})")
    if a.size < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def quadratic_weighted_kappa(a: Sequence[int], b: Sequence[int], n_categories: int) -> float | None:
    """Cohen's quadratic weighted kappa for integer ratings in ``0..n_categories-1``; ``None``
    when the expected disagreement is 0 (both raters constant at the same value)."""
    a = np.asarray(a, dtype=int)
    b = np.asarray(b, dtype=int)
    observed = np.zeros((n_categories, n_categories))
    np.add.at(observed, (a, b), 1)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / max(a.size, 1)
    idx = np.arange(n_categories)
    weights = (idx[:, None] - idx[None, :]) ** 2
    denom = float((weights * expected).sum())
    if denom == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denom
