import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    scale = 1.0 / np.sqrt(q.shape[-1])
    K = np.concatenate([cache_k, k_new], axis=-2)
    V = np.concatenate([cache_v, v_new], axis=-2)
    # running maximum started from the first cached key: there is none at the first step
    top = (q[..., 0, :] * cache_k[..., 0, :]).sum(-1) * scale
    scores = (q @ np.swapaxes(K, -1, -2))[..., 0, :] * scale
    for t in range(1, K.shape[-2]):
        top = np.maximum(top, scores[..., t])
    weights = np.exp(scores - top[..., None])
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights[..., None, :] @ V), K, V
