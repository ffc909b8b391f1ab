# problem: causal_mask
# contract: {"function": "subsequent_mask", "parameters": ["size"], "shape": [1, "n", "n"]}
# The Annotated Transformer's subsequent_mask, in NumPy.
import numpy as np


def subsequent_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype("uint8")
    return subsequent_mask == 0
