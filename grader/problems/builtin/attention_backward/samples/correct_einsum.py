import numpy as np


def attention_backward(Q, K, V, dO, mask=None):
    d_k = Q.shape[-1]
    S = np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(d_k)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    S = S - S.max(axis=-1, keepdims=True)
    P = np.exp(S)
    P /= P.sum(axis=-1, keepdims=True)
    dV = np.einsum("...qk,...qv->...kv", P, dO)
    dP = np.einsum("...qv,...kv->...qk", dO, V)
    dS = P * (dP - np.einsum("...qk,...qk->...q", dP, P)[..., None])
    dQ = np.einsum("...qk,...kd->...qd", dS, K) / np.sqrt(d_k)
    dK = np.einsum("...qk,...qd->...kd", dS, Q) / np.sqrt(d_k)
    return dQ, dK, dV
