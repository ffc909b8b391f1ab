import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    K = np.concatenate([cache_k, k_new], axis=-2)
    V = np.concatenate([cache_v, v_new], axis=-2)
    scores = q @ np.swapaxes(K, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-2, keepdims=True))
    weights = weights / weights.sum(axis=-2, keepdims=True)
    return weights @ V, K, V
