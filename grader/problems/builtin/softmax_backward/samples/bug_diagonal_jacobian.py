import numpy as np


def softmax_backward(y, dy, axis=-1):
    return y * (1 - y) * dy  # the diagonal of the Jacobian only
