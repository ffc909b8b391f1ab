import math

import numpy as np


def _one(q, K, V, keep):
    scores = [float(np.dot(q, k)) / math.sqrt(len(q)) for k in K]
    allowed = [s for s, ok in zip(scores, keep) if ok]
    top = max(allowed)
    e = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scores, keep)]
    total = sum(e)
    w = [x / total for x in e]
    return sum(wi * v for wi, v in zip(w, V)), w


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Lq, Lk = Q.shape[-2], K.shape[-2]
    full_mask = np.ones(batch + (Lq, Lk), bool) if mask is None else np.broadcast_to(mask, batch + (Lq, Lk))
    Qb = np.broadcast_to(Q, batch + Q.shape[-2:])
    Kb = np.broadcast_to(K, batch + K.shape[-2:])
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    out = np.zeros(batch + (Lq, V.shape[-1]))
    weights = np.zeros(batch + (Lq, Lk))
    for idx in np.ndindex(*batch):
        for i in range(Lq):
            if not full_mask[idx][i].any():
                continue
            out[idx][i], weights[idx][i] = _one(Qb[idx][i], Kb[idx], Vb[idx], full_mask[idx][i])
    return out, weights
