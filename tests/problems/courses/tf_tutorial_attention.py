# problem: scaled_dot_product_attention
# contract: {"parameters": ["q", "k", "v", "mask"], "mask": "numeric-blocked", "returns": "output+weights"}
# The TensorFlow "Transformer model for language understanding" tutorial, in NumPy.
import numpy as np


def scaled_dot_product_attention(q, k, v, mask):
    """Calculate the attention weights.

    q, k, v must have matching leading dimensions. The mask has different shapes depending on
    its type (padding or look ahead) but it must be broadcastable for addition.
    """
    matmul_qk = np.matmul(q, np.swapaxes(k, -1, -2))  # (..., seq_len_q, seq_len_k)
    dk = np.float32(k.shape[-1])
    scaled_attention_logits = matmul_qk / np.sqrt(dk)
    # add the mask to the scaled tensor.
    if mask is not None:
        scaled_attention_logits += (mask * -1e9)
    logits = scaled_attention_logits - np.max(scaled_attention_logits, axis=-1, keepdims=True)
    attention_weights = np.exp(logits) / np.sum(np.exp(logits), axis=-1, keepdims=True)
    output = np.matmul(attention_weights, v)  # (..., seq_len_q, depth_v)
    return output, attention_weights
