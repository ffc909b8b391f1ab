import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    safe = np.where(np.isfinite(m), m, 0.0)
    factors = np.exp(np.stack([m_a, m_b]) - safe)          # (2, ..., Lq)
    l = np.einsum("k...,k...->...", factors, np.stack([l_a, l_b]))
    o = np.einsum("k...q,k...qd->...qd", factors, np.stack([o_a, o_b]))
    return m, l, o
