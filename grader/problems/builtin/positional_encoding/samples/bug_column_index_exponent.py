import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for j in range(d_model):
            angle = pos / 10000 ** (j / d_model)  # Mistake: odd columns get (2i+1) / d_model
            pe[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe
