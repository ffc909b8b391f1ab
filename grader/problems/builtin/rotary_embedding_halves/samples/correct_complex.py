import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions)
    turn = np.exp(1j * np.outer(pos, 1.0 / 10000 ** (np.arange(0, d, 2) / d)))
    z = (x[..., : d // 2] + 1j * x[..., d // 2:]) * turn
    return np.concatenate([z.real, z.imag], axis=-1)
