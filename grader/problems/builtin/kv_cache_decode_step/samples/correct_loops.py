import math

import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    keys = np.concatenate([cache_k, k_new], axis=-2).astype(float)
    values = np.concatenate([cache_v, v_new], axis=-2).astype(float)
    lead = q.shape[:-2]
    out = np.zeros(lead + (1, values.shape[-1]))
    d_k = q.shape[-1]
    for index in np.ndindex(*lead):
        scores = [float(np.dot(q[index][0], k)) / math.sqrt(d_k) for k in keys[index]]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        total = sum(e)
        for weight, v in zip(e, values[index]):
            out[index][0] += weight / total * v
    return out, keys, values
