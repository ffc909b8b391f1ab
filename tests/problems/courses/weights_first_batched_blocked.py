# problem: scaled_dot_product_attention
# contract: {"function": "self_attention", "parameters": ["Q", "K", "V", "pad_mask"], "mask": "blocked", "returns": "weights+output", "ranks": [3]}
# A course on (B, L, d) batches only, whose masks are True where a key is padding, returning
# (weights, output).
import numpy as np


def self_attention(Q, K, V, pad_mask=None):
    d = Q.shape[2]
    scores = np.einsum("bqd,bkd->bqk", Q, K) / np.sqrt(d)
    if pad_mask is not None:
        scores = np.where(pad_mask, -np.inf, scores)
    scores = scores - scores.max(axis=2, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=2, keepdims=True)
    return weights, np.einsum("bqk,bkd->bqd", weights, V)
