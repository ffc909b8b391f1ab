# problem: multi_head_attention
# mistakes: split_and_merge_without_transpose, scale_by_sqrt_d_model, output_projection_missing
import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=None):
    # heads by a reshape alone (no transposes), the scores scaled by sqrt(d_model), and the
    # concatenated heads returned without W_o: three mistakes at once (issue 21)
    *batch, L, d_model = X.shape
    d_head = d_model // num_heads
    Q = (X @ W_q).reshape(*batch, num_heads, L, d_head)
    K = (X @ W_k).reshape(*batch, num_heads, L, d_head)
    V = (X @ W_v).reshape(*batch, num_heads, L, d_head)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_model)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ V).reshape(*batch, L, d_model)
