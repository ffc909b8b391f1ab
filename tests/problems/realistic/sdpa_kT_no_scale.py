# problem: scaled_dot_product_attention
# mistakes: k_transpose_all_axes, no_scaling
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = np.dot(Q, K.T) if Q.ndim == 2 else Q @ K.T
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V
