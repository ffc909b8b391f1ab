import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions, dtype=np.float64)
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    angle = np.outer(pos, inv_freq)
    emb = np.repeat(angle, 2, axis=-1)  # as in the interleaved layout
    turned = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return x * np.cos(emb) + turned * np.sin(emb)
