import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    safe = np.where(np.isneginf(m), 0.0, m)
    with np.errstate(over="ignore", invalid="ignore"):
        alpha = np.where(np.isneginf(m_a), 0.0, np.exp(safe - m_a))
        beta = np.where(np.isneginf(m_b), 0.0, np.exp(safe - m_b))
    return m, alpha * l_a + beta * l_b, alpha[..., None] * o_a + beta[..., None] * o_b
