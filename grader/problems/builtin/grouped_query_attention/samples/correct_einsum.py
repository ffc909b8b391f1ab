import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    # no copy of K and V: the query heads are reshaped into (G, H / G) instead
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    *lead, H, Lq, d_k = Q.shape
    G = K.shape[-3]
    q = Q.reshape(*lead, G, H // G, Lq, d_k)
    scores = np.einsum("...grqd,...gkd->...grqk", q, K) / np.sqrt(d_k)
    scores = scores.reshape(*lead, H, Lq, K.shape[-2])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    weights = weights.reshape(*lead, G, H // G, Lq, K.shape[-2])
    out = np.einsum("...grqk,...gkv->...grqv", weights, V)
    return out.reshape(*lead, H, Lq, V.shape[-1])
