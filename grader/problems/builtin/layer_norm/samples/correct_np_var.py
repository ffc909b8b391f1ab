import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)  # ddof=0: the biased variance
    return gamma * (x - mean) / np.sqrt(var + eps) + beta
