import numpy as np


def elu_plus_one(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention(Q, K, V, causal=False):
    q, k = elu_plus_one(Q), elu_plus_one(K)
    if causal:
        S = np.cumsum(np.einsum("...ld,...lv->...ldv", k, V), axis=-3)
        z = np.cumsum(k, axis=-2)
        return np.einsum("...ld,...ldv->...lv", q, S) / np.einsum("...ld,...ld->...l", q, z)[..., None]
    S = np.einsum("...ld,...lv->...dv", k, V)
    z = k.sum(axis=-2)
    return np.einsum("...ld,...dv->...lv", q, S) / np.einsum("...ld,...d->...l", q, z)[..., None]
