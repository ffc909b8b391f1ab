# problem: multi_head_attention
# contract: {"function": "mha", "parameters": ["x", "c_attn_w", "c_attn_b", "c_proj_w", "c_proj_b", "n_head"], "weights": "fused", "causal": true, "ranks": [2]}
# picoGPT (jaymody/picoGPT, gpt2.py): fused c_attn / c_proj weights with biases, always-causal
# heads, one sequence (n_seq, n_embd).
import numpy as np


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def attention(q, k, v, mask):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]) + mask) @ v


def linear(x, w, b):
    return x @ w + b


def mha(x, c_attn_w, c_attn_b, c_proj_w, c_proj_b, n_head):
    x = linear(x, c_attn_w, c_attn_b)                          # [n_seq, 3*n_embd]
    qkv = np.split(x, 3, axis=-1)                              # [3, n_seq, n_embd]
    qkv_heads = list(map(lambda x: np.split(x, n_head, axis=-1), qkv))
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads)]
    x = np.hstack(out_heads)                                   # [n_seq, n_embd]
    return linear(x, c_proj_w, c_proj_b)
