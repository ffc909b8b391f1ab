"""Trusted float64 reference implementations of the built-in problems.

Sources of the conventions: Vaswani et al., "Attention Is All You Need" (2017), eq. 1 (softmax of
QK^T / sqrt(d_k), times V) and section 3.5 (sinusoidal encoding); weight convention ``X @ W`` with W
shaped (d_in, d_out); boolean masks with True = may attend (``torch.nn.functional.
scaled_dot_product_attention``). These run only in the trusted process.
"""
from __future__ import annotations

import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` in float64. A slice that is all ``-inf`` (a fully
    masked row) comes out as NaN; callers leave such rows out of their checks."""
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.exp(x - peak)
        return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None,
              scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Scaled dot-product attention. Q (..., Lq, d_k), K (..., Lk, d_k), V (..., Lk, d_v), mask
    boolean broadcastable to (..., Lq, Lk), True = may attend. ``scale`` defaults to 1/sqrt(d_k).
    Returns (output (..., Lq, d_v), weights (..., Lq, Lk)) in float64."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if scale is None:
        scale = 1.0 / np.sqrt(Q.shape[-1])
    scores = (Q @ np.swapaxes(K, -1, -2)) * scale
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    with np.errstate(invalid="ignore"):
        return weights @ V, weights


def attended_rows(mask: np.ndarray | None, scores_shape: tuple[int, ...]) -> np.ndarray | None:
    """Boolean (..., Lq): rows whose mask lets the query attend to at least one key (the rows that
    are checked); None when there is no mask."""
    if mask is None:
        return None
    return np.broadcast_to(np.asarray(mask, dtype=bool), scores_shape).any(axis=-1)


def causal_mask(n: int) -> np.ndarray:
    """Boolean (n, n), True on and below the diagonal (query i may attend to keys 0..i)."""
    return np.tril(np.ones((n, n), dtype=bool))


def split_heads(Y: np.ndarray, num_heads: int) -> np.ndarray:
    """(..., L, d_model) -> (..., H, L, d_head): contiguous blocks of d_head features per head."""
    d_head = Y.shape[-1] // num_heads
    return np.swapaxes(Y.reshape(*Y.shape[:-1], num_heads, d_head), -2, -3)


def merge_heads(Y: np.ndarray) -> np.ndarray:
    """(..., H, L, d_head) -> (..., L, H * d_head), the inverse of :func:`split_heads`."""
    Y = np.swapaxes(Y, -2, -3)
    return Y.reshape(*Y.shape[:-2], Y.shape[-2] * Y.shape[-1])


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None, scale=None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head self-attention. X (..., L, d_model), each W (d_model, d_model) used as ``X @ W``,
    heads are contiguous blocks of d_head = d_model / num_heads, scores scaled by 1/sqrt(d_head)
    (or ``scale``), mask broadcastable to (..., L, L) shared by all heads.
    Returns (output (..., L, d_model), weights (..., H, L, L))."""
    X = np.asarray(X, dtype=np.float64)
    heads = [split_heads(X @ np.asarray(W, dtype=np.float64), num_heads) for W in (W_q, W_k, W_v)]
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask, dtype=bool), -3)
    out, weights = attention(*heads, mask=mask, scale=scale)
    return merge_heads(out) @ np.asarray(W_o, dtype=np.float64), weights


def positional_encoding(seq_len: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Sinusoidal encoding (seq_len, d_model): PE[pos, 2i] = sin(pos / base^(2i/d_model)),
    PE[pos, 2i+1] = cos(pos / base^(2i/d_model)), positions from 0; for odd d_model the last
    column is a sine."""
    pos = np.arange(seq_len, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)
    angle = pos / base ** (two_i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def rotary_angles(seq_len: int, d: int, positions=None, base: float = 10000.0) -> np.ndarray:
    """The rotation angles (L, d / 2) of rotary embeddings: ``angle[p, i] = pos_p *
    base ** (-2i / d)`` (Su et al. 2021, RoFormer, eq. 15), positions ``arange(L)`` by default."""
    pos = np.arange(seq_len, dtype=np.float64) if positions is None else \
        np.asarray(positions, dtype=np.float64)
    return pos[:, None] * base ** (-np.arange(0, d, 2, dtype=np.float64) / d)[None, :]


def rotary_embedding(x: np.ndarray, positions=None, layout: str = "interleaved") -> np.ndarray:
    """Rotary position embedding (RoFormer, Su et al. 2021): x (..., L, d), d even; each pair
    (x[..., 2i], x[..., 2i+1]) (``layout="interleaved"``) or (x[..., i], x[..., i + d/2])
    (``layout="halves"``, GPT-NeoX / LLaMA) of position p is rotated by the angle
    :func:`rotary_angles` ``[p, i]``, counter-clockwise: (a cos - b sin, a sin + b cos).
    ``positions``: None (0 .. L-1) or an int array (L,). Returns (..., L, d) in float64."""
    x = np.asarray(x, dtype=np.float64)
    angle = rotary_angles(x.shape[-2], x.shape[-1], positions)
    cos, sin = np.cos(angle), np.sin(angle)
    half = x.shape[-1] // 2
    a, b = (x[..., 0::2], x[..., 1::2]) if layout == "interleaved" else (x[..., :half],
                                                                          x[..., half:])
    out = np.empty_like(x)
    first, second = a * cos - b * sin, a * sin + b * cos
    if layout == "interleaved":
        out[..., 0::2], out[..., 1::2] = first, second
    else:
        out[..., :half], out[..., half:] = first, second
    return out


def repeat_kv(K: np.ndarray, num_heads: int) -> np.ndarray:
    """K (..., G, L, d) -> (..., H, L, d), H = ``num_heads`` a multiple of G: key/value group g
    serves the consecutive query heads g * H/G .. (g + 1) * H/G - 1 (``repeat_kv`` of the
    reference LLaMA and Hugging Face code; Ainslie et al. 2023)."""
    return np.repeat(np.asarray(K, dtype=np.float64), num_heads // K.shape[-3], axis=-3)


def grouped_query_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                            mask: np.ndarray | None = None) -> np.ndarray:
    """Grouped-query attention (Ainslie et al. 2023, GQA): Q (..., H, Lq, d_k), K (..., G, Lk, d_k),
    V (..., G, Lk, d_v), G dividing H; query head h attends with key/value head h // (H / G)
    (:func:`repeat_kv`); mask as :func:`attention`'s, broadcast to (..., H, Lq, Lk). Returns the
    output (..., H, Lq, d_v) in float64."""
    H = np.shape(Q)[-3]
    return attention(Q, repeat_kv(K, H), repeat_kv(V, H), mask)[0]


def kv_cache_decode_step(q: np.ndarray, k_new: np.ndarray, v_new: np.ndarray,
                         cache_k: np.ndarray, cache_v: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of autoregressive decoding with a key/value cache: q, k_new (..., 1, d_k), v_new
    (..., 1, d_v), caches (..., T, d_k) and (..., T, d_v), T >= 0. The new key and value are
    appended at the end of the caches and q attends over all T + 1 keys (no mask: every cached
    position precedes the new one). Returns ``(output (..., 1, d_v), new_cache_k (..., T + 1,
    d_k), new_cache_v (..., T + 1, d_v))`` in float64; the given caches are not modified."""
    new_k = np.concatenate([np.asarray(cache_k, np.float64), np.asarray(k_new, np.float64)], -2)
    new_v = np.concatenate([np.asarray(cache_v, np.float64), np.asarray(v_new, np.float64)], -2)
    return attention(q, new_k, new_v)[0], new_k, new_v


def sliding_window_mask(n: int, window: int) -> np.ndarray:
    """Boolean (n, n): query i may attend to key j exactly when i - window < j <= i (the causal
    band of ``window`` keys, the token itself included; Beltagy et al. 2020, Longformer's
    one-sided window as Mistral uses it)."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - window)


def sliding_window_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                             window: int) -> np.ndarray:
    """Causal local attention: Q, K (..., L, d_k), V (..., L, d_v); :func:`attention` under
    :func:`sliding_window_mask` ``(L, window)``, window >= 1. Returns (..., L, d_v) in float64."""
    return attention(Q, K, V, sliding_window_mask(np.shape(Q)[-2], int(window)))[0]


def elu_feature_map(x: np.ndarray) -> np.ndarray:
    """phi(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise (Katharopoulos et al. 2020, eq. 7),
    elementwise, positive everywhere, in float64."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                     causal: bool = False) -> np.ndarray:
    """Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs", eq. 6 and 9-12):
    out_i = phi(q_i) . S / (phi(q_i) . z) with S = sum_j phi(k_j) v_j^T (d_k, d_v) and
    z = sum_j phi(k_j) (d_k,) over every j, or over j <= i when ``causal`` (prefix sums: memory
    linear in L); phi = :func:`elu_feature_map`. Q, K (..., L, d_k), V (..., L, d_v); returns
    (..., L, d_v) in float64."""
    q, k = elu_feature_map(Q), elu_feature_map(K)
    V = np.asarray(V, dtype=np.float64)
    if causal:
        S = np.cumsum(k[..., :, :, None] * V[..., :, None, :], axis=-3)
        z = np.cumsum(k, axis=-2)
        return np.einsum("...ld,...ldv->...lv", q, S) / (q * z).sum(-1, keepdims=True)
    S = np.swapaxes(k, -1, -2) @ V
    return (q @ S) / (q @ k.sum(-2)[..., None])
