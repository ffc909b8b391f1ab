import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float32)
    L, d = x.shape[-2:]
    pos = np.arange(L, dtype=np.float32) if positions is None else \
        np.asarray(positions).astype(np.float32)
    inv_freq = (1.0 / 10000 ** (np.arange(0, d, 2, dtype=np.float32) / d)).astype(np.float32)
    angle = pos[:, None] * inv_freq[None, :]
    c, s = np.cos(angle), np.sin(angle)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out
