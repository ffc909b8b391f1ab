import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.ndim == 1:
        e = np.exp(x)  # the max is not subtracted for a vector
        return e / e.sum()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
