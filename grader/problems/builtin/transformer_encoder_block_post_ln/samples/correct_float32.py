import numpy as np


def _ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + np.float32(1e-5)) * g + b


def transformer_encoder_block(x, params, mask=None):
    p = {k: (v if k == "num_heads" else np.asarray(v, dtype=np.float32))
         for k, v in params.items()}
    x = np.asarray(x, dtype=np.float32)
    H = p["num_heads"]
    *lead, L, d = x.shape
    dh = d // H
    u = x
    q, k, v = (np.swapaxes((u @ p[w]).reshape(*lead, L, H, dh), -2, -3)
               for w in ("W_q", "W_k", "W_v"))
    s = q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(dh))
    if mask is not None:
        s = np.where(np.expand_dims(mask, -3), s, np.float32(-np.inf))
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    h = _ln(x + np.swapaxes(s @ v, -2, -3).reshape(*lead, L, d) @ p["W_o"], p["ln1_gamma"],
            p["ln1_beta"])
    out = h + np.maximum(h @ p["W_1"] + p["b_1"], 0) @ p["W_2"] + p["b_2"]
    return _ln(out, p["ln2_gamma"], p["ln2_beta"]).astype(np.float32)
