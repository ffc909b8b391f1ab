import numpy as np


def softmax(x, axis=-1):
    # written for one vector: a loop over its entries
    m = max(x)
    e = [np.exp(v - m) for v in x]
    total = sum(e)
    return np.array([v / total for v in e])
