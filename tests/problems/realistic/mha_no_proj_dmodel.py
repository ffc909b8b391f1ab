# problem: multi_head_attention
# mistakes: no_projections, scale_by_sqrt_d_model
import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    *batch, L, d_model = X.shape
    d_head = d_model // num_heads
    heads = np.swapaxes(X.reshape(*batch, L, num_heads, d_head), -2, -3)
    scores = heads @ np.swapaxes(heads, -1, -2) / np.sqrt(d_model)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    out = np.swapaxes(w @ heads, -2, -3).reshape(*batch, L, d_model)
    return out @ W_o
