import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    logits = scores if mask is None else np.where(mask, scores, -np.inf)
    attn = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    attn = attn / np.sum(attn, axis=-1, keepdims=True)
    return attn, np.matmul(scores, V)
