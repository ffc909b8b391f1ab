import math

import numpy as np


def sliding_window_attention(Q, K, V, window):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    L, d_k = Q.shape[-2], Q.shape[-1]
    out = np.zeros(Q.shape[:-1] + (V.shape[-1],))
    for index in np.ndindex(*Q.shape[:-2]):
        for i in range(L):
            keys = range(max(0, i - window + 1), i + 1)
            scores = [float(Q[index][i] @ K[index][j]) / math.sqrt(d_k) for j in keys]
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            for weight, j in zip(e, keys):
                out[index][i] += weight / sum(e) * V[index][j]
    return out
