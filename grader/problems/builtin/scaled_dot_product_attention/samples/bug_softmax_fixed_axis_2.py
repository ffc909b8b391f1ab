import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    # Mistake: written for (B, Lq, Lk) scores: axis=2 does not exist for 2-D inputs and is the
    # query axis for (B, H, Lq, Lk).
    weights = np.exp(scores - np.max(scores, axis=2, keepdims=True))
    weights = weights / np.sum(weights, axis=2, keepdims=True)
    return np.matmul(weights, V), weights
