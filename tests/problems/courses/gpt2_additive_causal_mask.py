# problem: causal_mask
# contract: {"function": "causal_mask", "parameters": ["n_seq"], "mask": "additive"}
# GPT-2 / picoGPT's causal mask: 0 where a token may attend, -1e10 above the diagonal.
import numpy as np


def causal_mask(n_seq):
    return (1 - np.tri(n_seq, dtype=np.float32)) * -1e10
