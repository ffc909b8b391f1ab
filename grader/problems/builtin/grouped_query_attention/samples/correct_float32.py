import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    n_rep = Q.shape[-3] // K.shape[-3]
    K = np.repeat(K, n_rep, axis=-3)
    V = np.repeat(V, n_rep, axis=-3)
    scores = np.matmul(Q, K.swapaxes(-1, -2)) * np.float32(1 / np.sqrt(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-1e30))
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ V).astype(np.float32)
