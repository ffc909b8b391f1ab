import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    safe = np.where(np.isneginf(m), 0.0, m)
    l = np.exp(m_a - safe) * l_a + np.exp(m_b - safe) * l_b
    return m, l, o_a + o_b  # the accumulator keeps its old maximum
