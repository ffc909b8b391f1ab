import numpy as np
def softmax(x, axis=-1):
    # subtracts the mean instead of the max
    e = np.exp(x - np.mean(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
