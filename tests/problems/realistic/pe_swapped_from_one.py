# problem: positional_encoding
# mistakes: sin_cos_swapped, positions_from_one
import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    position = np.arange(1, seq_len + 1)[:, None]
    div = 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe[:, 0::2] = np.cos(position / div)
    pe[:, 1::2] = np.sin(position / div)[:, : d_model // 2]
    return pe
