import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions, dtype=np.float64)
    inv_freq = 10000 ** (np.arange(0, d, 2) / d)
    angle = np.outer(pos, inv_freq)
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
