import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m_a, l_a, o_a, m_b, l_b, o_b = (np.asarray(v, dtype=np.float32)
                                    for v in (m_a, l_a, o_a, m_b, l_b, o_b))
    m = np.maximum(m_a, m_b)
    m_safe = np.where(m == -np.inf, np.float32(0), m)
    alpha = np.exp(m_a - m_safe)
    beta = np.exp(m_b - m_safe)
    l = alpha * l_a + beta * l_b
    o = alpha[..., None] * o_a + beta[..., None] * o_b
    return m, l, o.astype(np.float32)
