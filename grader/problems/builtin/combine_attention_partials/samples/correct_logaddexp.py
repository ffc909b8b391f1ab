import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    # In log space: log l_union = logaddexp(m_a + log l_a, m_b + log l_b) - m
    m = np.maximum(m_a, m_b)
    with np.errstate(divide="ignore"):
        log_a, log_b = m_a + np.log(l_a), m_b + np.log(l_b)
    empty = np.isneginf(m)
    shift = np.where(empty, 0.0, m)
    l = np.where(empty, 0.0, np.exp(np.logaddexp(log_a, log_b) - shift))
    alpha = np.exp(m_a - shift)[..., None]
    beta = np.exp(m_b - shift)[..., None]
    return m, l, alpha * o_a + beta * o_b
