import math

import numpy as np


def combine_attention_partials(m_a, l_a, o_a, m_b, l_b, o_b):
    m_a, l_a, o_a = np.asarray(m_a, float), np.asarray(l_a, float), np.asarray(o_a, float)
    m_b, l_b, o_b = np.asarray(m_b, float), np.asarray(l_b, float), np.asarray(o_b, float)
    m = np.empty(m_a.shape)
    l = np.empty(l_a.shape)
    o = np.empty(o_a.shape)
    for index in np.ndindex(*m_a.shape):
        top = max(m_a[index], m_b[index])
        m[index] = top
        if top == -math.inf:  # neither partial saw a key
            l[index], o[index] = 0.0, 0.0
            continue
        alpha = math.exp(m_a[index] - top)
        beta = math.exp(m_b[index] - top)
        l[index] = alpha * l_a[index] + beta * l_b[index]
        o[index] = [alpha * x + beta * y for x, y in zip(o_a[index], o_b[index])]
    return m, l, o
