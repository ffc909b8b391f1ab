import numpy as np


def sliding_window_attention(Q, K, V, window):
    L = Q.shape[-2]
    ones = np.ones((L, L), dtype=bool)
    band = np.tril(ones) & np.triu(ones, k=-(window - 1))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    scores = np.where(band, scores, -1e9)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True) @ V
