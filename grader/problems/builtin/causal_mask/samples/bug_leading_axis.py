import numpy as np


def causal_mask(n):
    # (1, n, n), ready to broadcast over the batch
    return np.tril(np.ones((1, n, n), dtype=bool))
