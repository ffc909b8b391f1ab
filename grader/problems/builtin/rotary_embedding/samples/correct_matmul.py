import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions, dtype=np.float64)
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    angles = np.outer(pos, inv_freq)
    cos = np.repeat(np.cos(angles), 2, axis=-1)
    sin = np.repeat(np.sin(angles), 2, axis=-1)
    # rotate_every_two as a matrix: (a, b) -> (-b, a) for each pair
    turn = np.zeros((d, d))
    turn[np.arange(1, d, 2), np.arange(0, d, 2)] = -1.0
    turn[np.arange(0, d, 2), np.arange(1, d, 2)] = 1.0
    return x * cos + (x @ turn) * sin
