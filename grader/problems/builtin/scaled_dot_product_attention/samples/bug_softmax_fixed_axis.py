import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # Mistake: axis=1 is the key axis only for 2-D inputs (the query axis for (B, Lq, Lk), the
    # heads axis for (B, H, Lq, Lk)); with a padding mask the heads axis holds only -inf: NaN.
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ V
