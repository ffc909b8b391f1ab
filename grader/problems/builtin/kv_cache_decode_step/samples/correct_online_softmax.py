import numpy as np


def kv_cache_decode_step(q, k_new, v_new, cache_k, cache_v):
    # the new key first, then the cached ones, with a running maximum (flash-decoding style)
    scale = 1.0 / np.sqrt(q.shape[-1])
    m = (q * k_new).sum(-1, keepdims=True) * scale
    total = np.ones_like(m)
    acc = np.array(v_new, dtype=np.float64)
    for t in range(cache_k.shape[-2]):
        s = (q * cache_k[..., t:t + 1, :]).sum(-1, keepdims=True) * scale
        m_new = np.maximum(m, s)
        acc = acc * np.exp(m - m_new) + np.exp(s - m_new) * cache_v[..., t:t + 1, :]
        total = total * np.exp(m - m_new) + np.exp(s - m_new)
        m = m_new
    return (acc / total, np.concatenate([cache_k, k_new], axis=-2),
            np.concatenate([cache_v, v_new], axis=-2))
