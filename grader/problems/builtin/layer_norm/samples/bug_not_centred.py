import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    ms = (x ** 2).mean(axis=-1, keepdims=True)  # RMSNorm
    x_hat = x / np.sqrt(ms + eps)
    return x_hat * gamma + beta
