import numpy as np


def sliding_window_attention(Q, K, V, window):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    L = Q.shape[-2]
    offsets = np.arange(L)[:, None] - np.arange(L)[None, :]
    band = (offsets >= 0) & (offsets < window)
    scores = (Q @ K.swapaxes(-1, -2)) * np.float32(1 / np.sqrt(Q.shape[-1]))
    scores = np.where(band, scores, np.float32(-1e30))
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ V).astype(np.float32)
