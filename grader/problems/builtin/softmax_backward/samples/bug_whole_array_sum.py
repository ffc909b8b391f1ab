import numpy as np


def softmax_backward(y, dy, axis=-1):
    return y * (dy - np.sum(dy * y))
