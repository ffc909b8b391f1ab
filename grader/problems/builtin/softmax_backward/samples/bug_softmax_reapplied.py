import numpy as np


def softmax_backward(y, dy, axis=-1):
    e = np.exp(y - np.max(y, axis=axis, keepdims=True))
    s = e / np.sum(e, axis=axis, keepdims=True)  # y is already the softmax
    return s * (dy - np.sum(dy * s, axis=axis, keepdims=True))
