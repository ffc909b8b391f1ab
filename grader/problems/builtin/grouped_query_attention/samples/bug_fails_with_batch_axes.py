import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    H, Lq, d_k = Q.shape
    n_rep = H // K.shape[0]
    K = np.repeat(K, n_rep, axis=0)
    V = np.repeat(V, n_rep, axis=0)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
