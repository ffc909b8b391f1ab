import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for col in range(d_model):
            angle = pos / 10000 ** (2 * col / d_model)  # raw column index
            pe[pos, col] = np.sin(angle) if col % 2 == 0 else np.cos(angle)
    return pe
