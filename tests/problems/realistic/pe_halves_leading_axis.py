# problem: positional_encoding
# mistakes: halves_concatenated, leading_batch_axis
import numpy as np


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len)[:, None]
    half = (d_model + 1) // 2
    angles = pos / 10000 ** (2 * np.arange(half) / d_model)
    pe = np.concatenate([np.sin(angles), np.cos(angles)[:, : d_model - half]], axis=-1)
    return pe[np.newaxis]
