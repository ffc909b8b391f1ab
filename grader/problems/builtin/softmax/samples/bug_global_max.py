import numpy as np


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x))  # one global max
    return e / np.sum(e, axis=axis, keepdims=True)
