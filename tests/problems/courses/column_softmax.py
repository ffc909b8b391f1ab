# problem: softmax
# contract: {"parameters": ["z", "axis"], "default_axis": 0}
# A course whose scores are column vectors (one example per column): softmax over axis 0.
import numpy as np


def softmax(z, axis=0):
    z_shift = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z_shift)
    return e / np.sum(e, axis=axis, keepdims=True)
