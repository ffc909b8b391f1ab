import numpy as np


def attention(q, k, v, mask):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    return (s / s.sum(axis=-1, keepdims=True)) @ v


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    d_head = X.shape[-1] // num_heads
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    heads = []
    for h in range(num_heads):
        block = slice(h * d_head, (h + 1) * d_head)
        heads.append(attention(Q[..., block], K[..., block], V[..., block], mask))
    return np.concatenate(heads, axis=-1) @ W_o
