import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if axis in (-1, x.ndim - 1):
        e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    else:
        e = np.exp(x)  # the max is subtracted only on the last axis
    return e / np.sum(e, axis=axis, keepdims=True)
