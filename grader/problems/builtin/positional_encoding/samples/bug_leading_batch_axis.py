import numpy as np


def positional_encoding(seq_len, d_model):
    pos = np.arange(seq_len)[:, None]
    two_i = np.arange(0, d_model, 2)
    ang = pos / 10000 ** (two_i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang[:, : d_model // 2])
    return pe[None, :, :]  # Mistake: (1, seq_len, d_model), as the PyTorch buffer
