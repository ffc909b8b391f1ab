import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L, dtype=np.float64)  # positions are 0 .. L-1
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    angle = np.outer(pos, inv_freq)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out
