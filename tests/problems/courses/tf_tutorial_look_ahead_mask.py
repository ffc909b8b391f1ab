# problem: causal_mask
# contract: {"function": "create_look_ahead_mask", "parameters": ["size"], "mask": "numeric-blocked"}
# The TensorFlow tutorial's look-ahead mask (1 - band_part(ones, -1, 0)), in NumPy.
import numpy as np


def create_look_ahead_mask(size):
    mask = 1 - np.tril(np.ones((size, size)))
    return mask  # (seq_len, seq_len)
