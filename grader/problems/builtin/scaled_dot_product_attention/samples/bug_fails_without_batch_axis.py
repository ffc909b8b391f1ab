import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    batch_size = Q.shape[0]  # assumes a batch axis: for (L, d) inputs Q[b] is one query
    outputs = []
    for b in range(batch_size):
        scores = Q[b] @ np.swapaxes(K[b], -1, -2) / np.sqrt(Q.shape[-1])
        if mask is not None:
            m = mask[b] if np.ndim(mask) == Q.ndim else mask
            scores = np.where(np.broadcast_to(m, scores.shape), scores, -np.inf)
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights = weights / weights.sum(axis=-1, keepdims=True)
        outputs.append(weights @ V[b])
    return np.stack(outputs)
