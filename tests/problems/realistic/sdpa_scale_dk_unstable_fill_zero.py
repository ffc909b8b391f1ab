# problem: scaled_dot_product_attention
# mistakes: scale_by_d_k, softmax_not_stable, mask_fill_zero
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / d_k
    if mask is not None:
        scores = scores * mask
    e = np.exp(scores)
    return (e / e.sum(axis=-1, keepdims=True)) @ V
