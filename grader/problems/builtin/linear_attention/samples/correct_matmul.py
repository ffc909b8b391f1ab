import numpy as np


def feature_map(x):
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))) + 1.0  # elu(x) + 1


def linear_attention(Q, K, V, causal=False):
    q, k = feature_map(Q), feature_map(K)
    if not causal:
        kv = np.swapaxes(k, -1, -2) @ V
        normaliser = q @ k.sum(axis=-2, keepdims=True).swapaxes(-1, -2)
        return (q @ kv) / normaliser
    # causal: the same as the quadratic form phi(Q) phi(K)^T under a causal mask
    A = (q @ np.swapaxes(k, -1, -2)) * np.tril(np.ones((Q.shape[-2],) * 2))
    return (A @ V) / A.sum(axis=-1, keepdims=True)
