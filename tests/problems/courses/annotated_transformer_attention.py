# problem: scaled_dot_product_attention
# contract: {"function": "attention", "parameters": ["query", "key", "value", "mask"], "returns": "output+weights"}
# The Annotated Transformer's attention (masked_fill(mask == 0, -1e9)), in NumPy.
import math

import numpy as np


def attention(query, key, value, mask=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.shape[-1]
    scores = np.matmul(query, np.swapaxes(key, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p_attn = np.exp(scores)
    p_attn = p_attn / p_attn.sum(axis=-1, keepdims=True)
    return np.matmul(p_attn, value), p_attn
