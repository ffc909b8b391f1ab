# problem: positional_encoding
# mistakes: transposed, raw_column_exponent
import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((d_model, seq_len))
    for pos in range(seq_len):
        for j in range(0, d_model, 2):
            pe[j, pos] = np.sin(pos / 10000 ** (j * 2 / d_model))
            if j + 1 < d_model:
                pe[j + 1, pos] = np.cos(pos / 10000 ** ((j + 1) * 2 / d_model))
    return pe
