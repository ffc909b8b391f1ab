import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X = X.astype(np.float32)
    W_q, W_k, W_v, W_o = (w.astype(np.float32) for w in (W_q, W_k, W_v, W_o))
    *batch, L, d_model = X.shape
    d_head = d_model // num_heads
    split = lambda Y: Y.reshape(*batch, L, num_heads, d_head).swapaxes(-2, -3)  # noqa: E731
    Q, K, V = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    scores = (Q @ K.swapaxes(-1, -2)) * np.float32(d_head ** -0.5)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, np.float32(-1e30))
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return ((w @ V).swapaxes(-2, -3).reshape(*batch, L, d_model) @ W_o).astype(np.float32)
