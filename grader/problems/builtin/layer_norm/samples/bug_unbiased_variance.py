import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = np.var(x, axis=-1, ddof=1, keepdims=True)  # torch.var's default
    x_hat = (x - mean) / np.sqrt(var + eps)
    return x_hat * gamma + beta
