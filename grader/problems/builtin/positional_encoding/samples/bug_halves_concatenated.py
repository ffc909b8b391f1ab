import numpy as np


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len)[:, None]
    i = np.arange(0, d_model, 2)
    angle = pos / np.power(10000.0, i / d_model)
    return np.concatenate([np.sin(angle), np.cos(angle[:, : d_model // 2])], axis=1)
