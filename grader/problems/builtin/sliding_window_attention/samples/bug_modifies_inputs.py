import numpy as np


def sliding_window_attention(Q, K, V, window):
    L = Q.shape[-2]
    i, j = np.arange(L)[:, None], np.arange(L)[None, :]
    band = (j <= i) & (j > i - window)
    Q /= np.sqrt(Q.shape[-1])  # in place on the caller's array
    scores = Q @ np.swapaxes(K, -1, -2)
    scores = np.where(band, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
