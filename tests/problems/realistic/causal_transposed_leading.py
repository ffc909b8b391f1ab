# problem: causal_mask
# mistakes: transposed, leading_axis
import numpy as np


def causal_mask(n):
    return np.triu(np.ones((1, n, n)), k=0).astype(bool)
