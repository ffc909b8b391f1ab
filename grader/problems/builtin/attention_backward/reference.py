"""The trusted backward pass of scaled dot-product attention (the gradients FlashAttention's
backward kernel computes, Dao et al. 2022, Algorithm 4 with the recomputed weights)."""
from __future__ import annotations

import numpy as np

from grader.problems.reference import softmax


def attention_backward(Q, K, V, dO, mask=None):
    """``(dQ, dK, dV)`` of O = P V, P = softmax(S), S = Q K^T / sqrt(d_k) (blocked scores -inf
    where ``mask`` is False), for the upstream gradient ``dO`` (..., Lq, d_v):
    dV = P^T dO; dP = dO V^T; dS = P * (dP - rowsum(dP * P)); dQ = dS K / sqrt(d_k);
    dK = dS^T Q / sqrt(d_k). Shapes: those of Q (..., Lq, d_k), K (..., Lk, d_k),
    V (..., Lk, d_v). Every query row must allow some key."""
    Q, K, V, dO = (np.asarray(a, dtype=np.float64) for a in (Q, K, V, dO))
    scale = 1.0 / np.sqrt(Q.shape[-1])
    scores = Q @ np.swapaxes(K, -1, -2) * scale
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    P = softmax(scores, axis=-1)
    dV = np.swapaxes(P, -1, -2) @ dO
    dP = dO @ np.swapaxes(V, -1, -2)
    dS = P * (dP - np.sum(dP * P, axis=-1, keepdims=True))
    return dS @ K * scale, np.swapaxes(dS, -1, -2) @ Q * scale, dV
