import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    q = np.asarray(q, dtype=np.float32)
    K = np.concatenate([cache_k, k_new], axis=-2).astype(np.float32)
    V = np.concatenate([cache_v, v_new], axis=-2).astype(np.float32)
    scores = (q @ K.swapaxes(-1, -2)) * np.float32(1 / np.sqrt(q.shape[-1]))
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ V).astype(np.float32), K, V
