import math

import numpy as np


def grouped_query_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    H, G = Q.shape[-3], K.shape[-3]
    per_group = H // G
    lead = np.broadcast_shapes(Q.shape[:-3], K.shape[:-3])
    Lq, Lk, d_k = Q.shape[-2], K.shape[-2], Q.shape[-1]
    out = np.zeros(lead + (H, Lq, V.shape[-1]))
    full_mask = None if mask is None else np.broadcast_to(mask, lead + (H, Lq, Lk))
    for index in np.ndindex(*lead):
        for h in range(H):
            g = h // per_group
            for i in range(Lq):
                scores = [float(Q[index + (h, i)] @ K[index + (g, j)]) / math.sqrt(d_k)
                          for j in range(Lk)]
                allowed = [full_mask is None or full_mask[index + (h, i, j)] for j in range(Lk)]
                top = max(s for s, a in zip(scores, allowed) if a)
                e = [math.exp(s - top) if a else 0.0 for s, a in zip(scores, allowed)]
                total = sum(e)
                for j in range(Lk):
                    out[index + (h, i)] += e[j] / total * V[index + (g, j)]
    return out
