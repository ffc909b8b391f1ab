import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    safe = np.where(np.isneginf(m), 0.0, m)
    wa, wb = np.exp(m_a - safe) * l_a, np.exp(m_b - safe) * l_b
    # weights for normalised outputs, applied to unnormalised sums
    return m, wa + wb, wa[..., None] * o_a + wb[..., None] * o_b
