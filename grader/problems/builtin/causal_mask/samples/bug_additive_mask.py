import numpy as np


def causal_mask(n):
    return np.where(np.tril(np.ones((n, n))) == 1, 0.0, -np.inf)
