# problem: scaled_dot_product_attention
# mistakes: returns_weights_first, mask_inverted
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = np.matmul(Q, np.swapaxes(K, -2, -1)) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask, -1e9, scores)  # "mask out" where the mask is set
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)
    return weights, np.matmul(weights, V)
