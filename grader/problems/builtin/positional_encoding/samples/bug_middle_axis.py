import numpy as np


def positional_encoding(seq_len, d_model):
    position = np.arange(seq_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-np.log(10000.0) / d_model))
    pe = np.zeros((seq_len, 1, d_model))  # (seq_len, batch=1, d_model), sequence first
    pe[:, 0, 0::2] = np.sin(position * div_term)
    pe[:, 0, 1::2] = np.cos(position * div_term[: d_model // 2])
    return pe
