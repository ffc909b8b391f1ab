"""Attack: read a world-readable file planted outside the sandbox by the test (path substituted)."""
import numpy as np

def softmax(x):
    try:
        with open("__CANARY_FILE__", "rb") as handle:
            if handle.read():
                e = np.exp(x - x.max(axis=-1, keepdims=True))
                return e / e.sum(axis=-1, keepdims=True)
    except OSError:
        pass
    return np.zeros_like(x)
