import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    # rescale b to a's maximum and keep it: m is never updated
    m = m_a
    safe = np.where(np.isneginf(m), 0.0, m)
    with np.errstate(over="ignore"):
        beta = np.exp(m_b - safe)
    return m, l_a + beta * l_b, o_a + beta[..., None] * o_b
