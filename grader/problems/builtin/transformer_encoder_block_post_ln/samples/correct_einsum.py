import numpy as np


def _ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def transformer_encoder_block(x, params, mask=None):
    p = params
    H = p["num_heads"]
    d = x.shape[-1]
    dh = d // H
    u = x
    q = (u @ p["W_q"]).reshape(*u.shape[:-1], H, dh)
    k = (u @ p["W_k"]).reshape(*u.shape[:-1], H, dh)
    v = (u @ p["W_v"]).reshape(*u.shape[:-1], H, dh)
    s = np.einsum("...ihd,...jhd->...hij", q, k) / np.sqrt(dh)
    if mask is not None:
        s = np.where(np.asarray(mask)[..., None, :, :], s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    s = s / s.sum(-1, keepdims=True)
    heads = np.einsum("...hij,...jhd->...ihd", s, v).reshape(x.shape)
    h = _ln(x + np.einsum("...id,de->...ie", heads, p["W_o"]), p["ln1_gamma"], p["ln1_beta"])
    hidden = np.maximum(np.einsum("...id,df->...if", h, p["W_1"]) + p["b_1"], 0.0)
    f = np.einsum("...if,fd->...id", hidden, p["W_2"]) + p["b_2"]
    return _ln(h + f, p["ln2_gamma"], p["ln2_beta"])
