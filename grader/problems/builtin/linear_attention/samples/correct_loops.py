import math

import numpy as np


def phi(x):
    return x + 1.0 if x > 0 else math.exp(x)


def linear_attention(Q, K, V, causal=False):
    # the recurrent form: S and z accumulated one position at a time
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    L, d_k, d_v = Q.shape[-2], Q.shape[-1], V.shape[-1]
    out = np.zeros(Q.shape[:-1] + (d_v,))
    for index in np.ndindex(*Q.shape[:-2]):
        q = np.vectorize(phi)(Q[index])
        k = np.vectorize(phi)(K[index])
        v = V[index]
        if not causal:
            S, z = k.T @ v, k.sum(axis=0)
            out[index] = (q @ S) / (q @ z)[:, None]
            continue
        S, z = np.zeros((d_k, d_v)), np.zeros(d_k)
        for i in range(L):
            S += np.outer(k[i], v[i])
            z += k[i]
            out[index][i] = q[i] @ S / (q[i] @ z)
    return out
