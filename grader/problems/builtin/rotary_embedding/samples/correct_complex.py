import numpy as np


def rotary_embedding(x, positions=None):
    # LLaMA's reference style: pairs as complex numbers times e^{i p theta}
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions)
    freqs = 1.0 / 10000 ** (np.arange(0, d, 2)[: d // 2] / d)
    turn = np.exp(1j * np.outer(pos, freqs))
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * turn
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)
