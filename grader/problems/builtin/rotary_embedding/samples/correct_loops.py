import math

import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=float)
    L, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = range(L)
    out = x.copy()
    for row, p in enumerate(positions):
        for i in range(d // 2):
            theta = p * 10000 ** (-2 * i / d)
            c, s = math.cos(theta), math.sin(theta)
            a, b = x[..., row, 2 * i], x[..., row, 2 * i + 1]
            out[..., row, 2 * i] = a * c - b * s
            out[..., row, 2 * i + 1] = a * s + b * c
    return out
