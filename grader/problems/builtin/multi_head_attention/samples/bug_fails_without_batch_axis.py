import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    B, L, d_model = X.shape  # assumes a batch axis
    d_head = d_model // num_heads

    def split(Y):
        return Y.reshape(B, L, num_heads, d_head).transpose(0, 2, 1, 3)

    Q, K, V = split(X @ W_q), split(X @ W_k), split(X @ W_v)
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    heads = (w @ V).transpose(0, 2, 1, 3).reshape(B, L, d_model)
    return heads @ W_o
