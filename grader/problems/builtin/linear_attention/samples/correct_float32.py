import numpy as np


def linear_attention(Q, K, V, causal=False):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    q = np.where(Q > 0, Q + 1, np.exp(np.minimum(Q, 0))).astype(np.float32)
    k = np.where(K > 0, K + 1, np.exp(np.minimum(K, 0))).astype(np.float32)
    if causal:
        S = np.cumsum(k[..., :, :, None] * V[..., :, None, :], axis=-3)
        z = np.cumsum(k, axis=-2)
        num = (q[..., :, :, None] * S).sum(axis=-2)
        return num / (q * z).sum(axis=-1, keepdims=True)
    S = np.swapaxes(k, -1, -2) @ V
    z = k.sum(axis=-2)
    return (q @ S) / (q * z[..., None, :]).sum(axis=-1, keepdims=True)
