import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    scale = np.float32(1.0 / np.sqrt(Q.shape[-1]))
    scores = np.matmul(Q, K.swapaxes(-1, -2)) * scale
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-1e30))
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ V).astype(np.float32), weights.astype(np.float32)
