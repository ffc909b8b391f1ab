import numpy as np


def attention_backward(Q, K, V, dO, mask=None):
    scale = 1.0 / np.sqrt(Q.shape[-1])
    S = Q @ np.swapaxes(K, -1, -2) * scale
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P = P / P.sum(axis=-1, keepdims=True)
    dV = np.swapaxes(P, -1, -2) @ dO
    dP = dO @ np.swapaxes(V, -1, -2)
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    dQ = dS @ K
    dK = np.swapaxes(dS, -1, -2) @ Q * scale
    return dQ, dK, dV
