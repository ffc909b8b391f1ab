import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is None:
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    else:
        e = np.where(mask, np.exp(scores), 0.0)  # the max is subtracted only without a mask
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V, weights
