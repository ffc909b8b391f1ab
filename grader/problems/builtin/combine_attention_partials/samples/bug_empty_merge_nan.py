import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m = np.maximum(m_a, m_b)
    with np.errstate(invalid="ignore"):
        alpha = np.exp(m_a - m)  # -inf - (-inf) is NaN
        beta = np.exp(m_b - m)
    return m, alpha * l_a + beta * l_b, alpha[..., None] * o_a + beta[..., None] * o_b
