import numpy as np


def attention(Q, K, V):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    return (weights / weights.sum(axis=-1, keepdims=True)) @ V


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    K = np.concatenate([cache_k, k_new], axis=-2)
    V = np.concatenate([cache_v, v_new], axis=-2)
    return attention(q, K, V), K, V
