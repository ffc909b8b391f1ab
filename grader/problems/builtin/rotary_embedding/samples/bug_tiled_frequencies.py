import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    L, d = x.shape[-2:]
    pos = np.arange(L) if positions is None else np.asarray(positions, dtype=np.float64)
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    angle = np.outer(pos, inv_freq)
    emb = np.concatenate([angle, angle], axis=-1)  # as in the halves layout
    cos, sin = np.cos(emb), np.sin(emb)
    turned = np.empty_like(x)
    turned[..., 0::2], turned[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return x * cos + turned * sin
