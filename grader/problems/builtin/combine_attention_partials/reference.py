"""The trusted merge of two attention partials (FlashAttention, Dao et al. 2022, Algorithm 1
lines 11-12; split-K "flash decoding"; the online softmax of Milakov & Gimelshein 2018)."""
from __future__ import annotations

import numpy as np


def partial(scores: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partial ``(m, l, o)`` of scaled ``scores`` (..., Lq, n) over ``values`` (..., n, d_v):
    m (..., Lq) the row maximum, l (..., Lq) the sum of exp(score - m), o (..., Lq, d_v) the
    unnormalised sum of exp(score - m) * v. With n = 0 (no keys): m = -inf, l = 0, o = 0."""
    scores = np.asarray(scores, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if scores.shape[-1] == 0:
        shape = scores.shape[:-1]
        return (np.full(shape, -np.inf), np.zeros(shape),
                np.zeros(shape + values.shape[-1:]))
    m = scores.max(axis=-1)
    e = np.exp(scores - m[..., None])
    return m, e.sum(axis=-1), e @ values


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    """The partial ``(m, l, o)`` of the union of the keys of partials a and b: m = max(m_a, m_b),
    each partial rescaled by exp(m_x - m) before l and o are added. A row where both partials
    are empty (m = -inf) stays empty (m = -inf, l = 0, o = 0) instead of exp(-inf + inf) = NaN.
    Shapes: m, l (..., Lq); o (..., Lq, d_v); leading axes broadcast."""
    m_a, l_a, o_a, m_b, l_b, o_b = (np.asarray(v, dtype=np.float64)
                                    for v in (m_a, l_a, o_a, m_b, l_b, o_b))
    m = np.maximum(m_a, m_b)
    shift = np.where(np.isneginf(m), 0.0, m)  # both empty: exp(-inf - 0) = 0, not NaN
    alpha, beta = np.exp(m_a - shift), np.exp(m_b - shift)
    return m, alpha * l_a + beta * l_b, alpha[..., None] * o_a + beta[..., None] * o_b
