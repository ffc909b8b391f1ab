import numpy as np


def sliding_window_attention(Q, K, V, window):
    L = Q.shape[-2]
    i = np.arange(L)[:, None]
    j = np.arange(L)[None, :]
    allowed = (j <= i) & (i - j < window)
    scores = np.einsum("...id,...jd->...ij", Q, K) / np.sqrt(Q.shape[-1])
    scores = np.where(allowed, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...ij,...jv->...iv", weights, V)
