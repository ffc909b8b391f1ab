import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    safe = np.where(np.isneginf(m), 0.0, m)
    alpha, beta = np.exp(m_a - safe), np.exp(m_b - safe)
    o = alpha[..., None] * o_a + beta[..., None] * o_b
    return m, l_a + l_b, o  # the normaliser is not rescaled
