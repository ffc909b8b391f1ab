# problem: positional_encoding
# contract: {"parameters": ["length", "depth"], "layout": "halves", "shape": [1, "L", "d"]}
# The TensorFlow tutorial's positional encoding: sines then cosines, concatenated, as a
# (1, length, depth) buffer.
import numpy as np


def positional_encoding(length, depth):
    half = depth / 2
    positions = np.arange(length)[:, np.newaxis]        # (seq, 1)
    depths = np.arange(half)[np.newaxis, :] / half       # (1, depth/2)
    angle_rates = 1 / (10000 ** depths)                  # (1, depth/2)
    angle_rads = positions * angle_rates                 # (pos, depth/2)
    pos_encoding = np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1)
    return pos_encoding[np.newaxis, ...].astype(np.float32)
