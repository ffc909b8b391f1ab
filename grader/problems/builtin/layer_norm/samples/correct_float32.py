import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float32)
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    y = centred * (1.0 / np.sqrt(var + np.float32(eps)))
    return (y * gamma.astype(np.float32) + beta.astype(np.float32)).astype(np.float32)
