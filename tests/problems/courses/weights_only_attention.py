# problem: scaled_dot_product_attention
# contract: {"function": "attention_weights", "parameters": ["query", "keys", "values", "mask"], "returns": "weights"}
# A course whose first exercise returns the attention weights only.
import numpy as np


def attention_weights(query, keys, values, mask=None):
    scores = query @ np.swapaxes(keys, -1, -2) / np.sqrt(query.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)
