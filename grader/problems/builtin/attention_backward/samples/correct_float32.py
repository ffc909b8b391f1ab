import numpy as np


def attention_backward(Q, K, V, dO, mask=None):
    Q, K, V, dO = (np.asarray(a, dtype=np.float32) for a in (Q, K, V, dO))
    scale = np.float32(1.0 / np.sqrt(Q.shape[-1]))
    S = (Q @ np.swapaxes(K, -1, -2)) * scale
    if mask is not None:
        S = np.where(mask, S, np.float32(-np.inf))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P = P / P.sum(axis=-1, keepdims=True)
    dV = np.swapaxes(P, -1, -2) @ dO
    dS = P * (dO @ np.swapaxes(V, -1, -2))
    dS = dS - P * dS.sum(axis=-1, keepdims=True)
    return dS @ K * scale, np.swapaxes(dS, -1, -2) @ Q * scale, dV
