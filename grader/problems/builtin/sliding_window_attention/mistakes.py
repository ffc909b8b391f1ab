"""The mistakes ``sliding_window_attention`` is checked for, as toggles of one buggy
implementation (:func:`buggy_sliding_window`) over
:func:`grader.problems.attention_variants.buggy_attention`, and its cross-case rule. Seen in
public sliding-window code and its issues: the band one key too wide (``i - j <= window``, the
off-by-one Mistral's and several FlashAttention ports discussed) or too narrow, a two-sided
window (``|i - j| < window``, Longformer's local attention without the causal half), the window
ignored (plain causal attention), the band put above the diagonal (triu and tril exchanged), the
band applied to the weights after the softmax, and the SDPA mistakes that carry over."""
from __future__ import annotations

import numpy as np

from grader.problems import inputs
from grader.problems.attention_variants import buggy_attention, sqrt_d_k
from grader.problems.base import Rule
from grader.problems.rules import failed_in_category
from grader.problems.spec import mistake


def band(n: int, window: int, kind: str = "causal", widen: int = 0) -> np.ndarray:
    """Boolean (n, n) bands: ``"causal"`` i - (window + widen) < j <= i, ``"two_sided"``
    |i - j| < window, ``"full_causal"`` j <= i, ``"above"`` i <= j < i + window."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return {"causal": (j <= i) & (j > i - window - widen),
            "two_sided": np.abs(i - j) < window, "full_causal": j <= i,
            "above": (j >= i) & (j < i + window)}[kind]


def buggy_sliding_window(Q, K, V, window, *, kind="causal", widen=0, scale=sqrt_d_k,
                         **attention):
    """Sliding-window attention with optional mistakes: the band ``kind`` and ``widen`` of
    :func:`band`, ``scale(d_k, d_v)`` and the toggles of :func:`buggy_attention` (``axis``,
    ``mask_mode``). Returns the output (..., L, d_v)."""
    mask = band(np.shape(Q)[-2], int(window), kind, widen)
    return buggy_attention(Q, K, V, mask, scale=scale, **attention)[0]


MISTAKES = (
    mistake("window_one_too_wide", "The window holds window + 1 keys (j >= i - window): query i "
            "attends to keys j with i - window < j <= i, exactly `window` keys counting itself "
            "(window 1 is the token alone).", {"widen": 1}),
    mistake("window_one_too_narrow", "The window holds window - 1 keys (j > i - window + 1): "
            "query i attends to keys j with i - window < j <= i, exactly `window` keys counting "
            "itself (window 1 is the token alone, not nothing).", {"widen": -1}),
    mistake("window_two_sided", "The window is two-sided (|i - j| < window), so queries see "
            "future keys: sliding-window attention here is causal, i - window < j <= i.",
            {"kind": "two_sided"}),
    mistake("window_ignored", "The window is ignored: this is plain causal attention. Query i "
            "attends only to the last `window` keys, i - window < j <= i.",
            {"kind": "full_causal"}),
    mistake("window_above_diagonal", "The band lies above the diagonal (i <= j < i + window, "
            "np.triu and np.tril exchanged): query i attends to itself and the window - 1 keys "
            "BEFORE it, i - window < j <= i.", {"kind": "above"}),
    mistake("mask_after_softmax", "The band is applied to the weights after the softmax without "
            "renormalising, so rows sum to less than 1: set the scores outside the band to -inf "
            "before the softmax.", {"mask_mode": "after"}, bug="8"),
    mistake("no_scaling", "The scores are not scaled: divide Q K^T by sqrt(d_k).",
            {"scale": lambda d_k, d_v: 1.0}, bug="2"),
    mistake("softmax_query_axis", "The softmax normalised the query axis, so columns of the "
            "weights sum to 1 instead of rows: take the softmax over the last (key) axis.",
            {"axis": -2}, bug="5"),
)

RULES = (
    Rule(tag="modifies_inputs", explains=failed_in_category("inputs"), message=inputs.MESSAGE),
)
