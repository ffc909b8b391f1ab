# problem: scaled_dot_product_attention
# contract: {"function": "attention", "parameters": ["q", "k", "v", "mask"], "mask": "additive", "mask_required": true, "ranks": [2]}
# picoGPT (jaymody/picoGPT, gpt2.py): a 2-D attention whose causal mask is additive.
import numpy as np


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def attention(q, k, v, mask):  # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] -> [n_q, d_v]
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v
