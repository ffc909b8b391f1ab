import math

import numpy as np


def positional_encoding(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for col in range(d_model):
            i = col // 2
            angle = pos / (10000 ** (2 * i / d_model))
            pe[pos, col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return pe
