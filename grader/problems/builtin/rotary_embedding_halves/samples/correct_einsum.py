import numpy as np


def rotary_embedding(x, positions=None):
    x = np.asarray(x, dtype=np.float64)
    *lead, L, d = x.shape
    pos = np.arange(L) if positions is None else np.asarray(positions)
    angle = np.einsum("l,i->li", pos.astype(np.float64), 10000.0 ** (-np.arange(0, d, 2) / d))
    c, s = np.cos(angle), np.sin(angle)
    rotation = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)  # (L, d/2, 2, 2)
    pairs = np.stack(np.split(x, 2, axis=-1), axis=-1)  # (..., L, d/2, 2)
    turned = np.einsum("lirc,...lic->...lir", rotation, pairs)
    return np.concatenate([turned[..., 0], turned[..., 1]], axis=-1)
