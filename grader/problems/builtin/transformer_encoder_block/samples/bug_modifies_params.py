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
    u = _ln(x, p["ln1_gamma"], p["ln1_beta"])
    # the fused projection cached in the caller's dict (it changes params: a key is added)
    if "W_qkv" not in p:
        p["W_qkv"] = np.concatenate([p["W_q"], p["W_k"], p["W_v"]], axis=1)
    q, k, v = (t.reshape(*u.shape[:-1], H, dh) for t in np.split(u @ p["W_qkv"], 3, axis=-1))
    s = np.einsum("...ihd,...jhd->...hij", q, k) / np.sqrt(dh)
    if mask is not None:
        s = np.where(np.asarray(mask)[..., None, :, :], s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    s = s / s.sum(-1, keepdims=True)
    heads = np.einsum("...hij,...jhd->...ihd", s, v).reshape(x.shape)
    h = x + np.einsum("...id,de->...ie", heads, p["W_o"])
    u2 = _ln(h, p["ln2_gamma"], p["ln2_beta"])
    hidden = np.maximum(np.einsum("...id,df->...if", u2, p["W_1"]) + p["b_1"], 0.0)
    return h + np.einsum("...if,fd->...id", hidden, p["W_2"]) + p["b_2"]
