import numpy as np


def repeat_kv(x, n_rep):
    return x if n_rep == 1 else np.repeat(x, n_rep, axis=-3)


def grouped_query_attention(Q, K, V, mask=None):
    n_rep = Q.shape[-3] // K.shape[-3]
    K, V = repeat_kv(K, n_rep), repeat_kv(V, n_rep)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(V.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V
