# problem: causal_mask
# mistakes: additive_mask, diagonal_masked
import numpy as np


def causal_mask(n):
    return np.triu(np.full((n, n), -1e9), k=0)
