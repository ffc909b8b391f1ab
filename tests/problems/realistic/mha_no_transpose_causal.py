# problem: multi_head_attention
# mistakes: split_and_merge_without_transpose, always_causal
import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    *batch, L, d_model = X.shape
    d_head = d_model // num_heads
    Q = (X @ W_q).reshape(*batch, num_heads, L, d_head)
    K = (X @ W_k).reshape(*batch, num_heads, L, d_head)
    V = (X @ W_v).reshape(*batch, num_heads, L, d_head)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_head)
    keep = np.tril(np.ones((L, L), dtype=bool))
    if mask is not None:
        keep = keep & np.expand_dims(mask, -3)
    scores = np.where(keep, scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(*batch, L, d_model) @ W_o
