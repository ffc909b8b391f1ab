import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    scores = q @ np.swapaxes(cache_k, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ cache_v  # attends before the new entry is appended
    K = np.concatenate([cache_k, k_new], axis=-2)
    V = np.concatenate([cache_v, v_new], axis=-2)
    return out, K, V
