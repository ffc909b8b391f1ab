import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    *batch, L, d_model = X.shape
    d_head = d_model // num_heads
    W_q *= 1.0 / np.sqrt(d_head)  # folds the scale into the caller's W_q
    split = lambda Y: np.swapaxes(Y.reshape(*batch, L, num_heads, d_head), -2, -3)  # noqa: E731
    Q, K, V = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return np.swapaxes(w @ V, -2, -3).reshape(*batch, L, d_model) @ W_o
