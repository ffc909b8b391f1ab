import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    new_cache_k = np.concatenate((cache_k, k_new), axis=-2)
    new_cache_v = np.concatenate((cache_v, v_new), axis=-2)
    scores = np.einsum("...qd,...kd->...qk", q, new_cache_k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kv->...qv", weights, new_cache_v), new_cache_k, new_cache_v
