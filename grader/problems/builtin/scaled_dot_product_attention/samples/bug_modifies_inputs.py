import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q /= np.sqrt(Q.shape[-1])  # scales the caller's Q in place
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V
