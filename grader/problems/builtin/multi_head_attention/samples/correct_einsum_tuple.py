import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    *batch, L, d_model = X.shape
    d = d_model // num_heads
    q = np.einsum("...lm,mn->...ln", X, W_q).reshape(*batch, L, num_heads, d)
    k = np.einsum("...lm,mn->...ln", X, W_k).reshape(*batch, L, num_heads, d)
    v = np.einsum("...lm,mn->...ln", X, W_v).reshape(*batch, L, num_heads, d)
    scores = np.einsum("...qhd,...khd->...hqk", q, k) / np.sqrt(d)
    if mask is not None:
        scores = np.where(np.asarray(mask)[..., None, :, :], scores, -1e9)
    scores -= scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(-1, keepdims=True)
    out = np.einsum("...hqk,...khd->...qhd", w, v).reshape(*batch, L, d_model)
    return out @ W_o, w
