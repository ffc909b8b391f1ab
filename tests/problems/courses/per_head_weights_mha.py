# problem: multi_head_attention
# contract: {"function": "multi_head_attention", "parameters": ["X", "Wq", "Wk", "Wv", "Wo", "n_heads", "mask"], "weights": "per-head", "returns": "output+weights"}
# A course whose heads each own their projections (H, d_model, d_head), returning the output and
# the per-head weights (..., H, L, L).
import numpy as np


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = np.einsum("...ld,hde->...hle", X, Wq)
    K = np.einsum("...ld,hde->...hle", X, Wk)
    V = np.einsum("...ld,hde->...hle", X, Wv)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    heads = weights @ V                                        # (..., H, L, d_head)
    concat = np.concatenate([heads[..., h, :, :] for h in range(n_heads)], axis=-1)
    return concat @ Wo, weights
