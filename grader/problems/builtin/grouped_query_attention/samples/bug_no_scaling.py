import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    n_rep = Q.shape[-3] // K.shape[-3]
    K = np.repeat(K, n_rep, axis=-3)
    V = np.repeat(V, n_rep, axis=-3)
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
