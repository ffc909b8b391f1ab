import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    L = Q.shape[-2]  # bug 22: assumes Lk == Lq
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    keep = np.ones((L, L), dtype=bool) if mask is None else mask
    scores = np.where(keep, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V
