import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    n_rep = Q.shape[-3] // K.shape[-3]
    K = K[..., :1, :, :]  # one key/value head, broadcast over the query heads
    V = V[..., :1, :, :]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
