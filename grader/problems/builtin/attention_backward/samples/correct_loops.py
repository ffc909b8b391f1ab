import math

import numpy as np


def attention_backward(Q, K, V, dO, mask=None):
    Q, K, V, dO = (np.asarray(a, dtype=float) for a in (Q, K, V, dO))
    Lq, d_k = Q.shape[-2:]
    Lk = K.shape[-2]
    lead = Q.shape[:-2]
    allowed = np.ones(lead + (Lq, Lk), dtype=bool) if mask is None else \
        np.broadcast_to(mask, lead + (Lq, Lk))
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for b in np.ndindex(*lead):
        for i in range(Lq):
            s = [float(Q[b][i] @ K[b][j]) / math.sqrt(d_k) if allowed[b][i, j] else -math.inf
                 for j in range(Lk)]
            top = max(s)
            e = [math.exp(v - top) for v in s]
            total = sum(e)
            p = [v / total for v in e]
            dp = [float(dO[b][i] @ V[b][j]) for j in range(Lk)]
            inner = sum(a * c for a, c in zip(p, dp))
            for j in range(Lk):
                dV[b][j] += p[j] * dO[b][i]
                ds = p[j] * (dp[j] - inner) / math.sqrt(d_k)
                dQ[b][i] += ds * K[b][j]
                dK[b][j] += ds * Q[b][i]
    return dQ, dK, dV
