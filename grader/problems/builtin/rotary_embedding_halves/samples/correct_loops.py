import math

import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=float)
    L, d = x.shape[-2], x.shape[-1]
    half = d // 2
    positions = range(L) if positions is None else positions
    out = x.copy()
    for row, p in enumerate(positions):
        for i in range(half):
            theta = p * 10000 ** (-2 * i / d)
            c, s = math.cos(theta), math.sin(theta)
            a, b = x[..., row, i], x[..., row, i + half]
            out[..., row, i] = a * c - b * s
            out[..., row, i + half] = a * s + b * c
    return out
