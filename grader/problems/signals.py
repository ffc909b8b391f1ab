"""Signals read off attention weights when no known mistake matched (attention-bugs.md, "Signals
that separate the kinds"): row and column sums, weight on blocked positions, NaN fraction. Each
signal is a phrase with fractions and ranges only, never an input or expected value."""
from __future__ import annotations

from typing import Any

import numpy as np

from grader.problems.compare import as_array


def weight_signals(weights: Any, mask: Any = None) -> list[str]:
    """Phrases describing what is wrong with ``weights`` (..., Lq, Lk); empty when they look like
    a proper softmax over the key axis. ``mask`` (True = may attend) adds the blocked-weight check.
    Rows whose mask blocks every key are ignored."""
    w = as_array(weights)
    if w is None or w.ndim < 2:
        return []
    signals = []
    rows = np.ones(w.shape[:-1], dtype=bool)
    blocked = None
    if mask is not None:
        try:
            keep = np.broadcast_to(np.asarray(mask, dtype=bool), w.shape)
        except ValueError:
            keep = None
        if keep is not None:
            rows = keep.any(axis=-1)
            blocked = ~keep
    if not rows.any():
        return []
    finite = np.isfinite(w)
    if not finite[rows].all():
        share = 1.0 - finite[rows].mean()
        signals.append(f"{share:.0%} of the weights are NaN or inf")
        return signals
    sums = w.sum(axis=-1)[rows]
    if np.abs(sums - 1.0).max() > 1e-3:
        signals.append(f"rows of the weights sum to between {sums.min():.3g} and {sums.max():.3g} "
                       "instead of 1")
        if w.shape[-1] != w.shape[-2] and np.allclose(w.sum(axis=-2), 1.0, atol=1e-3):
            signals.append("columns sum to 1, as if the softmax normalised the query axis")
    if (w < -1e-9).any():
        signals.append("some weights are negative")
    if blocked is not None:
        leak = np.where(blocked, w, 0.0).sum(axis=-1)[rows]
        if leak.max() > 1e-6:
            signals.append(f"blocked positions receive up to {leak.max():.1%} of a row's weight")
    return signals


def output_signals(output: Any, rows: np.ndarray | None = None) -> list[str]:
    """NaN/inf share of an output array (..., L, d) over the checked ``rows`` (boolean
    (..., L), as :attr:`grader.problems.base.Case.rows`; None: all rows). Rows the contract leaves
    unchecked (e.g. fully masked query rows) may hold NaN and are not counted."""
    out = as_array(output)
    if out is None or out.size == 0:
        return []
    if rows is not None and np.shape(rows) == out.shape[:-1]:
        out = out[np.asarray(rows, dtype=bool)]
        if out.size == 0:
            return []
    bad = ~np.isfinite(out)
    return [f"{bad.mean():.0%} of the output entries are NaN or inf"] if bad.any() else []
