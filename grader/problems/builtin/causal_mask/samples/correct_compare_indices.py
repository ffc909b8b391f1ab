import numpy as np


def causal_mask(n):
    i = np.arange(n)
    return i[None, :] <= i[:, None]
