import math

import numpy as np


def softmax(x, axis=-1):
    moved = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    out = np.empty_like(moved)
    for index in np.ndindex(*moved.shape[:-1]):
        row = moved[index]
        top = max(row)
        e = [math.exp(v - top) for v in row]
        total = sum(e)
        out[index] = [v / total for v in e]
    return np.moveaxis(out, -1, axis)
