"""Attack: sleep far past the wall limit (uses no CPU, so only the wall clock can stop it)."""
import time
import numpy as np

def softmax(x):
    time.sleep(600)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
