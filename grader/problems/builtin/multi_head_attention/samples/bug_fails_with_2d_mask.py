import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    *b, L, d_model = X.shape
    dh = d_model // num_heads
    def split(t):
        return np.swapaxes(t.reshape(*b, L, num_heads, dh), -3, -2)
    q, k, v = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(dh)
    if mask is not None:
        mask = np.expand_dims(mask, 1)  # Mistake: a head axis for (B, L, L) masks, not (L, L)
        s = np.where(mask, s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s); w = w / w.sum(-1, keepdims=True)
    o = np.swapaxes(w @ v, -3, -2).reshape(*b, L, d_model)
    return o @ W_o
