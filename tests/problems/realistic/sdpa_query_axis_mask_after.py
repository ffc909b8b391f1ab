# problem: scaled_dot_product_attention
# mistakes: softmax_query_axis, mask_after_softmax
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    e = np.exp(scores - scores.max(axis=-2, keepdims=True))
    attn = e / e.sum(axis=-2, keepdims=True)
    if mask is not None:
        attn = attn * mask
    return attn @ V
