"""The trusted layer normalisation (Ba, Kiros & Hinton 2016, "Layer Normalization", eq. 4;
PyTorch's ``nn.LayerNorm`` computes the same, with the biased variance and eps inside the square
root)."""
from __future__ import annotations

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis of ``x`` (..., d), var the
    biased (1/d) variance; ``gamma`` and ``beta`` (d,). Returns (..., d)."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * np.asarray(gamma, dtype=np.float64) + \
        np.asarray(beta, dtype=np.float64)
