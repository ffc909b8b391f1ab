import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions, dtype=np.float64)
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    angle = np.outer(pos, inv_freq)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., 0::2].copy(), x[..., 1::2].copy()
    x[..., 0::2] = a * cos - b * sin  # writes into the caller's array
    x[..., 1::2] = a * sin + b * cos
    return x
