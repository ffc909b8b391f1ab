import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x -= x.mean(axis=-1, keepdims=True)  # centres the caller's array
    x /= np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps)
    return x * gamma + beta
